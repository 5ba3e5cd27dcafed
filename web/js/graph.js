/**
 * A canvas drawn as SVG: laid out from the DSL's `graph` (RAGFlow's editor positions) when it has
 * one, else in layers from `begin` along `downstream` (back edges of legacy loops ignored for the
 * layering). Nodes carry `data-node` and `data-state`; the caller colours them by state.
 */
import { h, s } from './dom.js';

const W = 180;
const H = 52;
const GAP_X = 70;
const GAP_Y = 28;

function componentsOf(dsl) {
  return dsl?.components ?? {};
}

/** Layers by longest path from the roots (begin, or nodes nobody points at). */
function autoLayout(ids, edges) {
  const out = new Map(ids.map((id) => [id, []]));
  for (const [a, b] of edges) out.get(a)?.push(b);
  const layer = new Map();
  const state = new Map();
  const order = [];
  const visit = (id) => {
    state.set(id, 'open');
    for (const next of out.get(id) ?? []) if (!state.has(next)) visit(next);
    state.set(id, 'done');
    order.push(id);
  };
  const incoming = new Set(edges.map(([, b]) => b));
  const roots = ids.filter((id) => id === 'begin' || !incoming.has(id));
  for (const id of [...roots, ...ids]) if (!state.has(id)) visit(id);
  // Reverse post-order is a topological order of the graph without its back edges.
  const rank = new Map(order.reverse().map((id, i) => [id, i]));
  for (const id of order) {
    const l = layer.get(id) ?? 0;
    layer.set(id, l);
    for (const next of out.get(id) ?? []) if (rank.get(next) > rank.get(id)) layer.set(next, Math.max(layer.get(next) ?? 0, l + 1));
  }
  const rows = new Map();
  const pos = {};
  for (const id of order) {
    const l = layer.get(id);
    const row = rows.get(l) ?? 0;
    rows.set(l, row + 1);
    pos[id] = { x: l * (W + GAP_X), y: row * (H + GAP_Y), w: W, h: H };
  }
  return pos;
}

/** Nodes ({id, label, type, kind}), edges and positions of a canvas. */
export function layoutCanvas(dsl) {
  const comps = componentsOf(dsl);
  const graphNodes = (dsl?.graph?.nodes ?? []).filter((n) => n && n.id && n.type !== 'noteNode' && n.position);
  const nodes = [];
  const seen = new Set();
  for (const [id, c] of Object.entries(comps)) {
    const g = graphNodes.find((n) => n.id === id);
    nodes.push({ id, label: g?.data?.name ?? id, type: c?.obj?.component_name ?? '', kind: 'component', parent: c?.parent_id ?? null });
    seen.add(id);
  }
  // The editor also draws an Agent's tools and sub-agents; shown, greyed (they are not path nodes).
  for (const g of graphNodes) if (!seen.has(g.id)) nodes.push({ id: g.id, label: g.data?.name ?? g.id, type: g.data?.label ?? '', kind: 'tool', parent: null });
  const ids = nodes.map((n) => n.id);
  const edgeSet = new Set();
  const edges = [];
  const add = (a, b) => {
    const k = `${a}\u0000${b}`;
    if (a === b || !ids.includes(a) || !ids.includes(b) || edgeSet.has(k)) return;
    edgeSet.add(k);
    edges.push([a, b]);
  };
  for (const [id, c] of Object.entries(comps)) for (const d of c?.downstream ?? []) add(id, d);
  for (const e of dsl?.graph?.edges ?? []) add(e.source, e.target);
  let pos;
  if (graphNodes.length > 0) {
    pos = {};
    const byId = new Map(graphNodes.map((g) => [g.id, g]));
    const abs = (g) => {
      const p = byId.get(g.parentId);
      const base = p ? abs(p) : { x: 0, y: 0 };
      return { x: base.x + Number(g.position.x || 0), y: base.y + Number(g.position.y || 0) };
    };
    for (const g of graphNodes) pos[g.id] = { ...abs(g), w: W, h: H };
    const missing = ids.filter((id) => !pos[id]);
    const maxY = Math.max(0, ...Object.values(pos).map((p) => p.y + H));
    missing.forEach((id, i) => (pos[id] = { x: i * (W + GAP_X), y: maxY + 2 * GAP_Y, w: W, h: H }));
  } else {
    const parentEdges = nodes.filter((n) => n.parent && !edges.some(([, b]) => b === n.id)).map((n) => [n.parent, n.id]);
    pos = autoLayout(ids, [...edges, ...parentEdges]);
  }
  return { nodes, edges, pos };
}

function clip(text, n) {
  return text.length > n ? `${text.slice(0, n - 1)}…` : text;
}

/**
 * Draws the layout into an <svg>; `onSelect(id)` on a click (or Enter) on a node. Returns
 * `{svg, paint(stateOf, selected)}` to recolour without redrawing.
 */
export function drawGraph(layout, onSelect) {
  const { nodes, edges, pos } = layout;
  const xs = Object.values(pos);
  const minX = (xs.length ? Math.min(...xs.map((p) => p.x)) : 0) - 20;
  const minY = (xs.length ? Math.min(...xs.map((p) => p.y)) : 0) - 20;
  const maxX = Math.max(...xs.map((p) => p.x + p.w), minX + 220) + 20;
  const maxY = Math.max(...xs.map((p) => p.y + p.h), minY + 120) + 20;
  const svg = s('svg', { class: 'graph', viewBox: `${minX} ${minY} ${maxX - minX} ${maxY - minY}`, role: 'group', 'aria-label': 'canvas graph' });
  svg.append(
    s(
      'defs',
      {},
      s(
        'marker',
        { id: 'arrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto' },
        s('path', { d: 'M0,0 L10,5 L0,10 z', class: 'arrowhead' }),
      ),
    ),
  );
  for (const [a, b] of edges) {
    const p = pos[a];
    const q = pos[b];
    const x1 = p.x + p.w;
    const y1 = p.y + p.h / 2;
    const x2 = q.x;
    const y2 = q.y + q.h / 2;
    const dx = Math.max(40, Math.abs(x2 - x1) / 2);
    svg.append(s('path', { class: 'edge', d: `M${x1},${y1} C${x1 + dx},${y1} ${x2 - dx},${y2} ${x2},${y2}`, 'marker-end': 'url(#arrow)' }));
  }
  const groups = new Map();
  for (const n of nodes) {
    const p = pos[n.id];
    const g = s(
      'g',
      {
        class: `node kind-${n.kind}`,
        transform: `translate(${p.x},${p.y})`,
        dataset: { node: n.id },
        // A node is a button for keyboards and screen readers: Tab reaches it, Enter or Space opens it.
        ...(n.kind === 'component' ? { tabindex: 0, role: 'button' } : { 'aria-hidden': 'true' }),
      },
      s('title', {}, `${n.id} (${n.type})`),
      s('rect', { width: p.w, height: p.h, rx: 8 }),
      s('text', { x: 10, y: 21, class: 'label' }, clip(String(n.label), 24)),
      s('text', { x: 10, y: 40, class: 'type' }, clip(n.type, 18)),
      // The state in words too, not only in colour (and so in the node's accessible name).
      n.kind === 'component' ? s('text', { x: p.w - 8, y: 40, class: 'state', 'text-anchor': 'end' }) : null,
    );
    if (n.kind === 'component') {
      g.addEventListener('click', () => onSelect?.(n.id));
      g.addEventListener('keydown', (ev) => {
        if (ev.key !== 'Enter' && ev.key !== ' ') return;
        ev.preventDefault();
        onSelect?.(n.id);
      });
    }
    groups.set(n.id, g);
    svg.append(g);
  }
  return {
    svg,
    paint(stateOf, selected) {
      for (const [id, g] of groups) {
        const n = nodes.find((x) => x.id === id);
        const st = n.kind === 'component' ? stateOf(id) : 'tool';
        g.dataset.state = st;
        g.classList.toggle('selected', id === selected);
        if (n.kind === 'component') {
          // `idle`: a canvas shown outside any run (no state to name).
          g.querySelector('text.state').textContent = st === 'idle' ? '' : st;
          g.setAttribute('aria-pressed', String(id === selected));
        }
        for (const cls of [...g.classList]) if (cls.startsWith('st-')) g.classList.remove(cls);
        g.classList.add(`st-${st}`);
      }
    },
  };
}

/** A legend of node states. */
export function legend() {
  return h(
    'div',
    { class: 'legend' },
    ...['waiting', 'queued', 'running', 'done', 'failed', 'paused', 'skipped', 'canceled', 'reused'].map((st) => h('span', { class: `chip st-${st}` }, st)),
  );
}
