/**
 * A canvas as the run view draws it: its components (an Iteration's or Loop's body inside its
 * frame, from `parent_id`), each Agent's tools as small nodes attached under it (from the Agent's
 * `params.tools`, the list the run calls them from), and the edges of `downstream` and the
 * editor's graph. Boxes go where canvasLayout.js puts them: the editor's positions when sane,
 * else a layered layout. Drawing is graphDraw.js.
 */
import { acyclicParents, placeCanvas } from './canvasLayout.js';

export { drawGraph, legend } from './graphDraw.js';

export const W = 180;
export const H = 52;
export const TOOL_W = 87;
export const TOOL_H = 26;
export const TOOL_GAP = 6;
const TOOL_TOP = 12;
const TOOLS_PER_ROW = 2;

/** Where an Agent's tool `i` sits, relative to the Agent's block. */
export function toolSlot(i) {
  return { x: (i % TOOLS_PER_ROW) * (TOOL_W + TOOL_GAP), y: H + TOOL_TOP + Math.floor(i / TOOLS_PER_ROW) * (TOOL_H + TOOL_GAP), w: TOOL_W, h: TOOL_H };
}

function toolsOf(id, component) {
  const tools = component?.obj?.params?.tools;
  if (component?.obj?.component_name !== 'Agent' || !Array.isArray(tools)) return [];
  return tools
    .map((t, index) => ({ t, index }))
    .filter(({ t }) => t && typeof t === 'object')
    .map(({ t, index }) => {
      const name = String(t.name ?? t.component_name ?? `tool ${index}`);
      return { id: `${id}::tool:${index}`, owner: id, index, name, label: name, type: String(t.component_name ?? ''), kind: 'tool' };
    });
}

function blockHeight(toolCount) {
  if (toolCount === 0) return H;
  const rows = Math.ceil(toolCount / TOOLS_PER_ROW);
  return H + TOOL_TOP + rows * (TOOL_H + TOOL_GAP) - TOOL_GAP;
}

/**
 * Nodes (`{id, label, type, kind, parent, tools}`), tool nodes, edges, and per node its block
 * (`pos`: the box plus its tools) and per edge its route; `layout` says whose positions are used.
 */
export function layoutCanvas(dsl) {
  const comps = dsl?.components ?? {};
  const graphNodes = (dsl?.graph?.nodes ?? []).filter((n) => n && typeof n.id === 'string' && n.type !== 'noteNode');
  const byId = new Map(graphNodes.map((g) => [g.id, g]));
  const nodes = acyclicParents(
    Object.entries(comps).map(([id, c]) => ({
      id,
      label: String(byId.get(id)?.data?.name ?? id),
      type: String(c?.obj?.component_name ?? ''),
      kind: 'component',
      parent: typeof c?.parent_id === 'string' && c.parent_id in comps ? c.parent_id : null,
      tools: toolsOf(id, c),
    })),
  );
  const ids = new Set(nodes.map((n) => n.id));
  const seen = new Set();
  const edges = [];
  const add = (a, b) => {
    const k = `${a}\u0000${b}`;
    if (a === b || !ids.has(a) || !ids.has(b) || seen.has(k)) return;
    seen.add(k);
    edges.push([a, b]);
  };
  for (const [id, c] of Object.entries(comps)) for (const d of c?.downstream ?? []) add(id, d);
  for (const e of dsl?.graph?.edges ?? []) add(e?.source, e?.target);
  const sized = nodes.map((n) => ({ id: n.id, parent: n.parent, w: W, h: blockHeight(n.tools.length), anchor: H / 2 }));
  // Positions as the editor saved them; a child's relative to its parent.
  const editorPos = {};
  const abs = (g, depth = 0) => {
    const p = byId.get(g.parentId);
    const base = p && depth < 50 ? abs(p, depth + 1) : { x: 0, y: 0 };
    return { x: base.x + Number(g.position?.x || 0), y: base.y + Number(g.position?.y || 0) };
  };
  for (const n of sized) {
    const g = byId.get(n.id);
    if (g?.position) editorPos[n.id] = { ...abs(g), w: n.w, h: n.h, anchor: n.anchor };
  }
  const placed = placeCanvas(sized, edges, editorPos);
  const tools = nodes.flatMap((n) =>
    n.tools.map((t) => {
      const slot = toolSlot(n.tools.indexOf(t));
      const p = placed.pos[n.id];
      return { ...t, pos: { ...slot, x: p.x + slot.x + (p.w - W) / 2, y: p.y + slot.y } };
    }),
  );
  return { nodes, tools, edges, pos: placed.pos, routes: placed.routes, layout: placed.layout, reason: placed.reason };
}
