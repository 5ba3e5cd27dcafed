/**
 * Where the run view draws a canvas's boxes, pure (no DOM). RAGFlow's editor positions are kept
 * when they are sane — every node has one, no two boxes overlap (a group's frame and its own
 * children aside), and no node's branches are collinear with it (three targets in one row read as
 * a chain, their edges drawn behind each other's boxes) — else a layered layout (layout.js).
 * Groups (an Iteration's or Loop's body, from `parent_id`) are frames around their children:
 * laid out inside-out, each body on its own, the frame then a box of its parent level.
 * Nodes are `{id, parent, w, h, anchor?}`; the result's `pos` holds each node's block.
 */
import { GAP_Y, edgeKey, layered } from './layout.js';

export const PAD = 16;
export const HEADER = 30;

export const overlaps = (p, q) => p.x < q.x + q.w && q.x < p.x + p.w && p.y < q.y + q.h && q.y < p.y + p.h;

function ancestry(nodes) {
  const parentOf = new Map(nodes.map((n) => [n.id, n.parent ?? null]));
  const line = (id) => {
    const out = [];
    for (let p = parentOf.get(id), guard = 0; p && guard < 50; p = parentOf.get(p), guard++) out.push(p);
    return out;
  };
  return { parentOf, line, related: (a, b) => line(a).includes(b) || line(b).includes(a) };
}

const anchorOf = (n, p) => ({ x: p.x + p.w / 2, y: p.y + (n?.anchor ?? p.h / 2) });

/** Why the editor positions cannot be used as they are, or null when they are sane. */
export function insaneBecause(nodes, edges, pos) {
  const missing = nodes.find((n) => !pos[n.id]);
  if (missing) return `${missing.id} has no position`;
  const { related } = ancestry(nodes);
  for (let i = 0; i < nodes.length; i++)
    for (let j = i + 1; j < nodes.length; j++) {
      const [a, b] = [nodes[i].id, nodes[j].id];
      if (!related(a, b) && overlaps(pos[a], pos[b])) return `${a} and ${b} overlap`;
    }
  const byId = new Map(nodes.map((n) => [n.id, n]));
  for (const n of nodes) {
    const targets = [...new Set(edges.filter(([a, b]) => a === n.id && b !== n.id).map(([, b]) => b))];
    const from = anchorOf(n, pos[n.id]);
    const dirs = targets.map((t) => {
      const to = anchorOf(byId.get(t), pos[t]);
      return { t, x: to.x - from.x, y: to.y - from.y };
    });
    for (let i = 0; i < dirs.length; i++)
      for (let j = i + 1; j < dirs.length; j++) {
        const [u, v] = [dirs[i], dirs[j]];
        const cross = u.x * v.y - u.y * v.x;
        const dot = u.x * v.x + u.y * v.y;
        // Within ~5° of each other, on the same side: one edge runs along (and behind) the other.
        if (dot > 0 && Math.abs(cross) <= 0.09 * Math.hypot(u.x, u.y) * Math.hypot(v.x, v.y))
          return `the branches of ${n.id} to ${u.t} and ${v.t} are collinear with it`;
      }
  }
  return null;
}

/** Lays out the nodes under `parent` (null: the top level), groups first; positions relative. */
function layoutLevel(parent, nodes, edges, childrenOf, parentOf) {
  const members = childrenOf.get(parent) ?? [];
  const memberSet = new Set(members.map((n) => n.id));
  const inner = new Map();
  const sized = members.map((n) => {
    if (!childrenOf.get(n.id)?.length) return n;
    const sub = layoutLevel(n.id, nodes, edges, childrenOf, parentOf);
    inner.set(n.id, sub);
    return { ...n, w: Math.max(n.w, sub.width + 2 * PAD), h: HEADER + sub.height + PAD, anchor: HEADER / 2 };
  });
  // An edge into or out of a group's body counts, at this level, as one to or from the group.
  const lift = (id) => {
    let at = id;
    for (let guard = 0; at && !memberSet.has(at) && guard < 50; guard++) at = parentOf.get(at);
    return memberSet.has(at) ? at : null;
  };
  const seen = new Set();
  const levelEdges = [];
  for (const [a, b] of edges) {
    const [x, y] = [lift(a), lift(b)];
    if (!x || !y || x === y || seen.has(edgeKey(x, y))) continue;
    seen.add(edgeKey(x, y));
    levelEdges.push([x, y]);
  }
  const out = layered(sized, levelEdges);
  const pos = { ...out.pos };
  const routes = {};
  for (const [k, pts] of Object.entries(out.routes)) {
    const [a, b] = k.split('\u0000');
    if (memberSet.has(a) && memberSet.has(b)) routes[k] = pts;
  }
  for (const [id, sub] of inner) {
    const dx = pos[id].x + PAD + (pos[id].w - 2 * PAD - sub.width) / 2;
    const dy = pos[id].y + HEADER;
    for (const [cid, p] of Object.entries(sub.pos)) pos[cid] = { ...p, x: p.x + dx, y: p.y + dy };
    for (const [k, pts] of Object.entries(sub.routes)) routes[k] = pts.map((q) => ({ x: q.x + dx, y: q.y + dy }));
  }
  return { pos, routes, width: out.width, height: out.height };
}

/** The nodes with each `parent` that closes a cycle of parents (a malformed DSL) dropped. */
export function acyclicParents(nodes) {
  const parentOf = new Map(nodes.map((n) => [n.id, n.parent ?? null]));
  const cyclic = (id) => {
    const seen = new Set([id]);
    for (let p = parentOf.get(id); p; p = parentOf.get(p)) {
      if (seen.has(p)) return true;
      seen.add(p);
    }
    return false;
  };
  return nodes.map((n) => (n.parent && cyclic(n.id) ? { ...n, parent: null } : n));
}

/** The layered layout of the whole canvas, groups as frames. */
export function layeredCanvas(nodes, edges) {
  const { parentOf } = ancestry(nodes);
  const known = new Set(nodes.map((n) => n.id));
  const childrenOf = new Map();
  for (const n of nodes) {
    const p = n.parent && known.has(n.parent) ? n.parent : null;
    if (!childrenOf.has(p)) childrenOf.set(p, []);
    childrenOf.get(p).push(n);
  }
  return layoutLevel(null, nodes, edges, childrenOf, parentOf);
}

/** Grows each group's block (from its editor position) to frame its children, innermost first. */
export function framedEditorBlocks(nodes, editorPos) {
  const { line } = ancestry(nodes);
  const pos = Object.fromEntries(Object.entries(editorPos).map(([id, p]) => [id, { ...p }]));
  const groups = nodes.filter((n) => nodes.some((c) => c.parent === n.id)).sort((a, b) => line(b.id).length - line(a.id).length);
  for (const g of groups) {
    const kids = nodes.filter((c) => c.parent === g.id && pos[c.id]).map((c) => pos[c.id]);
    const p = pos[g.id];
    if (!p || kids.length === 0) continue;
    const right = Math.max(p.x + p.w, ...kids.map((k) => k.x + k.w + PAD));
    const bottom = Math.max(p.y + p.h, ...kids.map((k) => k.y + k.h + PAD));
    Object.assign(p, { w: right - p.x, h: bottom - p.y, anchor: HEADER / 2 });
  }
  return pos;
}

/** The points of an edge drawn between kept positions: around the boxes its straight line would pass behind. */
export function routeAround(from, to, obstacles) {
  const start = { x: from.x + from.w, y: from.y + (from.anchor ?? from.h / 2) };
  const end = { x: to.x, y: to.y + (to.anchor ?? to.h / 2) };
  if (end.x <= start.x) return [start, end];
  const hit = obstacles.filter((o) => segmentHitsBox(start, end, o));
  if (hit.length === 0) return [start, end];
  const above = Math.min(...hit.map((o) => o.y)) - GAP_Y / 2;
  const below = Math.max(...hit.map((o) => o.y + o.h)) + GAP_Y / 2;
  const lane = Math.abs(above - start.y) <= Math.abs(below - start.y) ? above : below;
  const left = Math.min(...hit.map((o) => o.x)) - 12;
  const right = Math.max(...hit.map((o) => o.x + o.w)) + 12;
  return [start, { x: left, y: lane }, { x: right, y: lane }, end];
}

/** Whether the segment p→q crosses the box (Liang–Barsky clipping). */
export function segmentHitsBox(p, q, b) {
  let t0 = 0;
  let t1 = 1;
  const dx = q.x - p.x;
  const dy = q.y - p.y;
  const sides = [
    [-dx, p.x - b.x],
    [dx, b.x + b.w - p.x],
    [-dy, p.y - b.y],
    [dy, b.y + b.h - p.y],
  ];
  for (const [pp, qq] of sides) {
    if (pp === 0) {
      if (qq <= 0) return false;
      continue;
    }
    const r = qq / pp;
    if (pp < 0) t0 = Math.max(t0, r);
    else t1 = Math.min(t1, r);
    if (t0 >= t1) return false;
  }
  return true;
}

/**
 * The canvas's boxes and edge routes: `{pos, routes, layout: 'editor' | 'layered', reason}`, the
 * editor's positions (`editorPos`, top-left per id, may be empty) when sane, else layered.
 */
export function placeCanvas(given, edges, editorPos) {
  const nodes = acyclicParents(given);
  const hasEditor = Object.keys(editorPos ?? {}).length > 0;
  const blocks = hasEditor ? framedEditorBlocks(nodes, editorPos) : {};
  const reason = hasEditor ? insaneBecause(nodes, edges, blocks) : 'the canvas has no editor positions';
  if (reason) return { ...layeredCanvas(nodes, edges), layout: 'layered', reason };
  const { related } = ancestry(nodes);
  const routes = {};
  for (const [a, b] of edges) {
    const obstacles = nodes.filter((n) => n.id !== a && n.id !== b && !related(n.id, a) && !related(n.id, b)).map((n) => blocks[n.id]);
    routes[edgeKey(a, b)] = routeAround(blocks[a], blocks[b], obstacles);
  }
  return { pos: blocks, routes, layout: 'editor', reason: null };
}
