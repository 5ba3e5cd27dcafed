/**
 * A layered ("Sugiyama") layout of a directed graph, pure (no DOM), for the run view's graph:
 * back edges (a legacy loop's) found depth-first and left out of the ranking, layers by longest
 * path, long edges split by dummy nodes so they run between boxes instead of behind them,
 * crossings reduced by barycentre sweeps, and each layer's boxes placed as close to their
 * neighbours' centres as the gaps allow (isotonic regression: straight chains, centred fans).
 * Nodes are `{id, w, h, anchor?}` (`anchor`: how far below its top edges attach, default h/2);
 * edges `[from, to]`; layers run left to right.
 */
export const GAP_X = 70;
export const GAP_Y = 28;
const DUMMY_H = 10;
const SWEEPS = 6;

export const edgeKey = (a, b) => `${a}\u0000${b}`;

/** The edges that close a cycle (into a node still open in a depth-first walk from the roots). */
export function backEdges(ids, edges) {
  const out = new Map(ids.map((id) => [id, []]));
  for (const [a, b] of edges) out.get(a)?.push(b);
  const incoming = new Set(edges.filter(([a, b]) => a !== b).map(([, b]) => b));
  const roots = ids.filter((id) => id === 'begin' || !incoming.has(id));
  const state = new Map();
  const back = new Set();
  const visit = (id) => {
    state.set(id, 'open');
    for (const next of out.get(id) ?? []) {
      if (state.get(next) === 'open') back.add(edgeKey(id, next));
      else if (!state.has(next)) visit(next);
    }
    state.set(id, 'done');
  };
  for (const id of [...roots, ...ids]) if (!state.has(id)) visit(id);
  for (const [a, b] of edges) if (a === b) back.add(edgeKey(a, b));
  return back;
}

/** Each node's layer: the longest path to it from a node without predecessors (back edges ignored). */
export function longestPathLayers(ids, edges) {
  const back = backEdges(ids, edges);
  const fwd = edges.filter(([a, b]) => !back.has(edgeKey(a, b)));
  const indeg = new Map(ids.map((id) => [id, 0]));
  const out = new Map(ids.map((id) => [id, []]));
  for (const [a, b] of fwd) {
    out.get(a).push(b);
    indeg.set(b, indeg.get(b) + 1);
  }
  const layer = new Map(ids.map((id) => [id, 0]));
  const queue = ids.filter((id) => indeg.get(id) === 0);
  while (queue.length > 0) {
    const id = queue.shift();
    for (const next of out.get(id)) {
      layer.set(next, Math.max(layer.get(next), layer.get(id) + 1));
      indeg.set(next, indeg.get(next) - 1);
      if (indeg.get(next) === 0) queue.push(next);
    }
  }
  return { layer, forward: fwd, back };
}

/** Pairs of edges between two adjacent layers that cross, given each node's index in its layer. */
export function crossings(pairs, index) {
  let n = 0;
  for (let i = 0; i < pairs.length; i++)
    for (let j = i + 1; j < pairs.length; j++) {
      const [a, b] = pairs[i];
      const [c, d] = pairs[j];
      if ((index.get(a) - index.get(c)) * (index.get(b) - index.get(d)) < 0) n++;
    }
  return n;
}

/** Positions `ys` (in order) as close to `want` as the minimum distances `sep[i]` (from i-1 to i) allow. */
export function placeInOrder(want, sep) {
  const offset = [];
  let acc = 0;
  for (let i = 0; i < want.length; i++) offset.push((acc += i === 0 ? 0 : sep[i]));
  // Pool-adjacent-violators on want - offset: the least-squares non-decreasing fit.
  const blocks = [];
  want.forEach((w, i) => {
    blocks.push({ sum: w - offset[i], n: 1 });
    while (blocks.length > 1 && blocks.at(-2).sum / blocks.at(-2).n > blocks.at(-1).sum / blocks.at(-1).n) {
      const last = blocks.pop();
      blocks.at(-1).sum += last.sum;
      blocks.at(-1).n += last.n;
    }
  });
  const fit = blocks.flatMap((b) => Array(b.n).fill(b.sum / b.n));
  return fit.map((f, i) => f + offset[i]);
}

/**
 * Lays out `nodes` ([{id, w, h}]) and `edges` ([[from, to]]). Returns `pos` (top-left, w, h per
 * id), `routes` (per edge key, the points an edge passes: its start, each dummy's left and right,
 * its end; see {@link edgePath}) and `back` (the keys of the edges left out of the ranking).
 */
export function layered(nodes, edges) {
  const ids = nodes.map((n) => n.id);
  const size = new Map(nodes.map((n) => [n.id, n]));
  const { layer, forward, back } = longestPathLayers(ids, edges);
  // Long edges become chains through dummy nodes, one per layer they cross.
  const chains = new Map();
  const links = [];
  for (const [a, b] of forward) {
    let prev = a;
    const dummies = [];
    for (let l = layer.get(a) + 1; l < layer.get(b); l++) {
      const d = `\u0001${a}\u0000${b}\u0000${l}`;
      layer.set(d, l);
      size.set(d, { id: d, w: 0, h: DUMMY_H, dummy: true });
      dummies.push(d);
      links.push([prev, d]);
      prev = d;
    }
    links.push([prev, b]);
    chains.set(edgeKey(a, b), dummies);
  }
  const depth = Math.max(0, ...layer.values()) + 1;
  const rows = Array.from({ length: depth }, () => []);
  for (const id of [...ids, ...[...size.keys()].filter((k) => !ids.includes(k))]) rows[layer.get(id)].push(id);
  const preds = new Map([...size.keys()].map((id) => [id, []]));
  const succs = new Map([...size.keys()].map((id) => [id, []]));
  for (const [a, b] of links) {
    succs.get(a).push(b);
    preds.get(b).push(a);
  }
  const indexOf = () => new Map(rows.flatMap((r) => r.map((id, i) => [id, i])));
  const total = () => {
    const index = indexOf();
    return crossings(links, index);
  };
  let best = rows.map((r) => [...r]);
  let bestCount = total();
  for (let s = 0; s < SWEEPS && bestCount > 0; s++) {
    const down = s % 2 === 0;
    const order = down
      ? rows.map((_, i) => i).slice(1)
      : rows
          .map((_, i) => i)
          .reverse()
          .slice(1);
    for (const l of order) {
      const index = indexOf();
      const ref = down ? preds : succs;
      const bary = (id, i) => {
        const ns = ref.get(id);
        return ns.length ? ns.reduce((t, n) => t + index.get(n), 0) / ns.length : i;
      };
      rows[l] = rows[l]
        .map((id, i) => [id, bary(id, i), i])
        .sort((x, y) => x[1] - y[1] || x[2] - y[2])
        .map(([id]) => id);
    }
    const count = total();
    if (count < bestCount) [best, bestCount] = [rows.map((r) => [...r]), count];
  }
  rows.splice(0, rows.length, ...best);
  // x per layer; y by centre, pulled toward neighbours' centres, down then up then down.
  const xs = [];
  let x = 0;
  for (const r of rows) {
    xs.push(x);
    x += Math.max(0, ...r.map((id) => size.get(id).w)) + GAP_X;
  }
  // "Centre" is where edges attach: `anchor` below the top (half the height unless given).
  const anchor = (id) => size.get(id).anchor ?? size.get(id).h / 2;
  const centre = new Map();
  for (const r of rows) {
    let y = 0;
    for (const id of r) {
      centre.set(id, y + anchor(id));
      y += size.get(id).h + GAP_Y;
    }
  }
  const gap = (a, b) => size.get(a).h - anchor(a) + anchor(b) + (size.get(a).dummy || size.get(b).dummy ? GAP_Y / 2 : GAP_Y);
  for (const [from, ref] of [
    [1, preds],
    [rows.length - 2, succs],
    [1, preds],
  ]) {
    const step = ref === preds ? 1 : -1;
    for (let l = from; l >= 0 && l < rows.length; l += step) {
      const r = rows[l];
      const want = r.map((id) => {
        const ns = ref.get(id);
        return ns.length ? ns.reduce((t, n) => t + centre.get(n), 0) / ns.length : centre.get(id);
      });
      placeInOrder(
        want,
        r.map((id, i) => (i === 0 ? 0 : gap(r[i - 1], id))),
      ).forEach((c, i) => centre.set(r[i], c));
    }
  }
  const top = Math.min(...[...centre].map(([id, c]) => c - anchor(id)));
  const pos = {};
  const box = (id) => ({ x: xs[layer.get(id)], y: centre.get(id) - anchor(id) - top, w: size.get(id).w, h: size.get(id).h });
  for (const id of ids) pos[id] = box(id);
  const routes = {};
  for (const [a, b] of forward) {
    const mid = chains.get(edgeKey(a, b)).flatMap((d) => {
      const p = box(d);
      return [
        { x: p.x, y: p.y + p.h / 2 },
        { x: p.x + Math.max(0, ...rows[layer.get(d)].map((id) => size.get(id).w)), y: p.y + p.h / 2 },
      ];
    });
    routes[edgeKey(a, b)] = [{ x: pos[a].x + pos[a].w, y: pos[a].y + anchor(a) }, ...mid, { x: pos[b].x, y: pos[b].y + anchor(b) }];
  }
  const width = Math.max(0, ...Object.values(pos).map((p) => p.x + p.w));
  const height = Math.max(0, ...[...size.keys()].map((id) => box(id).y + box(id).h));
  return { pos, routes, back, width, height };
}

/** An SVG path through route points: curves between columns (even steps), straight lines across them. */
export function edgePath(points) {
  let d = `M${points[0].x},${points[0].y}`;
  for (let i = 1; i < points.length; i++) {
    const p = points[i - 1];
    const q = points[i];
    if (i % 2 === 0) d += ` L${q.x},${q.y}`;
    else {
      const dx = Math.max(30, Math.abs(q.x - p.x) / 2);
      d += ` C${p.x + dx},${p.y} ${q.x - dx},${q.y} ${q.x},${q.y}`;
    }
  }
  return d;
}
