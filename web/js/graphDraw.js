/**
 * Draws a laid-out canvas (graph.js) as SVG inside a zoomable, pannable viewport (zoomPan.js):
 * group frames, edges along their routes, component boxes (label clipped with an ellipsis, the
 * full text in the tooltip), each Agent's tools as chips under it, and a warning mark a node shows
 * when tool calls of it failed. Nodes carry `data-node` and `data-state`; tools `data-tool`.
 */
import { h, s } from './dom.js';
import { H, W } from './graph.js';
import { edgePath } from './layout.js';
import { HEADER } from './canvasLayout.js';
import { zoomPan } from './zoomPan.js';

// Widths of a character at the label sizes (run.css: 13 px bold, 12 px), generous so text fits.
const LABEL_CHAR = 7.6;
const TYPE_CHAR = 6.8;

/** `text` cut to `max` characters, the cut shown by an ellipsis. */
export function clip(text, max) {
  const t = String(text);
  return t.length > max ? `${t.slice(0, Math.max(1, max - 1))}…` : t;
}

const fits = (width, perChar) => Math.max(3, Math.floor(width / perChar));

function edgeElement(layout, a, b) {
  const route = layout.routes[`${a}\u0000${b}`];
  const p = layout.pos[a];
  const q = layout.pos[b];
  const start = { x: p.x + p.w, y: p.y + (p.anchor ?? H / 2) };
  const end = { x: q.x, y: q.y + (q.anchor ?? H / 2) };
  let points = route;
  if (!points && end.x <= start.x) {
    // A loop back (a legacy loop's edge): under both boxes, then into the target from the left.
    const low = Math.max(p.y + p.h, q.y + q.h) + 18;
    points = [start, { x: start.x + 10, y: low }, { x: end.x - 10, y: low }, end];
  }
  return s('path', { class: 'edge', d: edgePath(points ?? [start, end]), 'marker-end': 'url(#arrow)', dataset: { from: a, to: b } });
}

function nodeElement(n, p, isGroup, onSelect) {
  const w = isGroup ? p.w : W;
  const title = n.label === n.id ? `${n.id} (${n.type})` : `${n.label} (${n.type}, ${n.id})`;
  const g = s(
    'g',
    { class: `node kind-component${isGroup ? ' group' : ''}`, transform: `translate(${p.x},${p.y})`, tabindex: 0, role: 'button', dataset: { node: n.id } },
    s('title', {}, title),
    s('rect', { width: w, height: isGroup ? p.h : H, rx: 8 }),
    isGroup ? s('line', { class: 'group-rule', x1: 0, x2: w, y1: HEADER, y2: HEADER }) : null,
    // Named by its <title> (full label, type, id, state: the tooltip too), not by these clipped texts.
    s('text', { x: 10, y: isGroup ? 20 : 21, class: 'label', 'aria-hidden': 'true' }, clip(n.label, fits(isGroup ? w - 110 : w - 20, LABEL_CHAR))),
    s(
      'text',
      { ...(isGroup ? { x: w - 10, y: 20, 'text-anchor': 'end' } : { x: 10, y: 40 }), class: 'type', 'aria-hidden': 'true' },
      clip(n.type, fits(isGroup ? 90 : w - 34, TYPE_CHAR)),
    ),
    s('text', { x: w - 8, y: isGroup ? HEADER + 16 : H - 8, class: 'warn', 'text-anchor': 'end', 'aria-hidden': 'true' }, '⚠'),
  );
  g.dataset.name = title;
  g.addEventListener('click', () => onSelect?.(n.id));
  g.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' || ev.key === ' ') {
      ev.preventDefault();
      onSelect?.(n.id);
    }
  });
  return g;
}

function toolElement(t, ownerBox) {
  const p = t.pos;
  return s(
    'g',
    { class: 'tool', transform: `translate(${p.x},${p.y})`, dataset: { tool: t.id, owner: t.owner } },
    s('title', {}, `${t.name} (tool ${t.index} of ${t.owner}, ${t.type})`),
    // From the Agent's box down to the chip.
    s('line', { class: 'tool-link', x1: p.w / 2, x2: p.w / 2, y1: ownerBox.y + H - p.y, y2: 0 }),
    s('rect', { width: p.w, height: p.h, rx: 12 }),
    s('text', { x: p.w / 2, y: p.h / 2 + 4, class: 'tool-label', 'text-anchor': 'middle' }, clip(t.label, fits(p.w - 12, TYPE_CHAR))),
  );
}

/**
 * Draws the layout; `onSelect(id)` on a click (or Enter) on a node. Returns `{el, svg, view,
 * paint(stateOf, selected, extras)}`: `el` holds the zoom controls and the svg; `paint` recolours
 * without redrawing (`extras.toolState(tool)` and `extras.warningOf(id)` for a run).
 */
export function drawGraph(layout, onSelect) {
  const { nodes, tools = [], edges, pos } = layout;
  const groupIds = new Set(nodes.filter((n) => nodes.some((c) => c.parent === n.id)).map((n) => n.id));
  const content = s('g', { class: 'viewport' });
  const svg = s(
    'svg',
    { class: 'graph', role: 'group', 'aria-label': 'canvas graph', dataset: { layout: layout.layout ?? 'layered' } },
    s(
      'defs',
      {},
      s(
        'marker',
        { id: 'arrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto' },
        s('path', { d: 'M0,0 L10,5 L0,10 z', class: 'arrowhead' }),
      ),
    ),
    content,
  );
  const groups = new Map();
  // Frames first (outermost first), so the boxes inside them are drawn on top.
  const depth = (n) => (n.parent ? 1 + depth(nodes.find((x) => x.id === n.parent) ?? {}) : 0);
  for (const n of nodes.filter((x) => groupIds.has(x.id)).sort((a, b) => depth(a) - depth(b))) {
    groups.set(n.id, nodeElement(n, pos[n.id], true, onSelect));
    content.append(groups.get(n.id));
  }
  for (const [a, b] of edges) content.append(edgeElement(layout, a, b));
  for (const n of nodes) {
    if (groupIds.has(n.id)) continue;
    groups.set(n.id, nodeElement(n, pos[n.id], false, onSelect));
    content.append(groups.get(n.id));
  }
  const chips = new Map();
  for (const t of tools) {
    const chip = toolElement(t, pos[t.owner]);
    // A tool's calls are listed in its Agent's panel.
    chip.addEventListener('click', () => onSelect?.(t.owner));
    chips.set(t.id, { t, chip });
    content.append(chip);
  }
  const xs = [...Object.values(pos), ...tools.map((t) => t.pos)];
  const bounds = {
    x: Math.min(0, ...xs.map((p) => p.x)) - 20,
    y: Math.min(0, ...xs.map((p) => p.y)) - 20,
    w: Math.max(220, ...xs.map((p) => p.x + p.w)) + 40 - Math.min(0, ...xs.map((p) => p.x)),
    h: Math.max(120, ...xs.map((p) => p.y + p.h)) + 60 - Math.min(0, ...xs.map((p) => p.y)),
  };
  const view = zoomPan(svg, content, bounds);
  const el = h('div', { class: 'graph-frame' }, view.controls, svg);
  return {
    el,
    svg,
    view,
    paint(stateOf, selected, extras = {}) {
      for (const [id, g] of groups) {
        const st = stateOf(id);
        g.dataset.state = st;
        g.classList.toggle('selected', id === selected);
        for (const cls of [...g.classList]) if (cls.startsWith('st-')) g.classList.remove(cls);
        g.classList.add(`st-${st}`);
        const warning = extras.warningOf?.(id) ?? null;
        if (warning) g.dataset.warning = warning;
        else delete g.dataset.warning;
        const failedCalls = warning === 'all' ? ', every tool call failed' : warning ? ', some tool calls failed' : '';
        // `idle`: a canvas shown outside any run (no state to name).
        g.querySelector('title').textContent = st === 'idle' ? g.dataset.name : `${g.dataset.name}: ${st}${failedCalls}`;
        g.setAttribute('aria-pressed', String(id === selected));
      }
      for (const { t, chip } of chips.values()) {
        const st = extras.toolState?.(t) ?? 'tool';
        chip.dataset.state = st;
        chip.setAttribute('class', `tool st-${st}`);
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
    h('span', { class: 'chip warn-chip' }, '⚠ tool calls failed'),
  );
}
