/**
 * How a compiled canvas is put together from its parsed DSL and checked components: shared by the
 * compiler (./compile.ts), which checks them first, and ./prepared.ts, which rebuilds a canvas the
 * API compiled (a run's workflow then parses no schema at all).
 */
import type { AnyComponentDef } from '../components/registry';
import type { CanvasView, ExecutionParams } from '../components/definition';
import type { PathSegment } from '../dsl/jsonPath';
import { DEFAULT_GLOBALS, type CanvasDsl, type ComponentNode } from '../dsl/schema';
import type { CompiledCanvas, CompiledNode } from './compiled';

/** The names the editor shows for components (its graph's nodes), by id. */
export function displayNames(dsl: CanvasDsl): Map<string, string> {
  const names = new Map<string, string>();
  const graph = dsl.graph as { nodes?: Array<{ id?: unknown; data?: { name?: unknown } }> } | undefined;
  for (const n of graph?.nodes ?? []) {
    if (typeof n?.id === 'string' && typeof n.data?.name === 'string') names.set(n.id, n.data.name);
  }
  return names;
}

function readOrigins(dsl: CanvasDsl): Record<string, PathSegment[]> {
  const raw = (dsl as { _origins?: unknown })._origins;
  if (typeof raw !== 'object' || raw === null) return {};
  const out: Record<string, PathSegment[]> = {};
  for (const [id, path] of Object.entries(raw)) {
    if (Array.isArray(path) && path.every((s) => typeof s === 'string' || typeof s === 'number')) out[id] = path as PathSegment[];
  }
  return out;
}

function envDefaults(dsl: CanvasDsl): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(dsl.variables)) {
    const type = String(v.type ?? '');
    let value = v.value;
    if (value === undefined || value === null) {
      if (type === 'number') value = 0;
      else if (type === 'boolean') value = false;
      else if (type === 'object') value = {};
      else if (type.startsWith('array')) value = [];
      else value = '';
    }
    out[`env.${key}`] = value;
  }
  return out;
}

/** A checked component as the engine runs it (./prepared.ts builds them from params compiled earlier). */
export function compiledNode(id: string, comp: ComponentNode, def: AnyComponentDef, params: ExecutionParams, names: ReadonlyMap<string, string>): CompiledNode {
  return {
    id,
    type: comp.obj.component_name,
    def,
    params,
    downstream: comp.downstream,
    upstream: comp.upstream,
    parentId: comp.parent_id || null,
    displayName: names.get(id) ?? '',
    role: def.role,
  };
}

/** Producers whose content the engine may stream into a downstream Message or Answer. */
function streamingProducers(nodes: Record<string, CompiledNode>): Set<string> {
  // Anyone reading a producer other than a Message needs its value before rendering time, so
  // such producers run eagerly (RAGFlow would hand them an unconsumed stream object).
  const consumers = new Map<string, CompiledNode[]>();
  for (const node of Object.values(nodes)) {
    const refs = [...node.def.inputRefs(node.params), ...(node.def.paramRefs?.(node.params) ?? []).map((r) => r.ref)];
    for (const ref of refs) {
      if (ref.kind !== 'component') continue;
      const list = consumers.get(ref.componentId) ?? [];
      list.push(node);
      consumers.set(ref.componentId, list);
    }
  }
  const out = new Set<string>();
  for (const node of Object.values(nodes)) {
    if (!node.def.streamsContent?.(node.params)) continue;
    if (node.params.exception_method && node.params.exception_goto.length > 0) continue;
    const shows = node.downstream.some((d) => nodes[d]?.role === 'message' || nodes[d]?.role === 'answer');
    if (!shows) continue;
    // Only when a Message actually shows it; RAGFlow would otherwise never run the model at all.
    const readers = consumers.get(node.id) ?? [];
    const answered = node.downstream.some((d) => nodes[d]?.role === 'answer');
    if ((readers.length > 0 || answered) && readers.every((r) => r.role === 'message')) out.add(node.id);
  }
  return out;
}

function makeView(nodes: Readonly<Record<string, CompiledNode>>): CanvasView {
  const children = new Map<string, string[]>();
  for (const node of Object.values(nodes)) if (node.parentId) children.set(node.parentId, [...(children.get(node.parentId) ?? []), node.id]);
  const begin = nodes.begin?.params as { prologue?: unknown; enablePrologue?: unknown } | undefined;
  // The editor's switch turns the greeting off without deleting its text.
  const prologue = typeof begin?.prologue === 'string' && begin.enablePrologue !== false ? begin.prologue : '';
  return {
    has: (id) => Object.prototype.hasOwnProperty.call(nodes, id),
    typeOf: (id) => nodes[id]?.type ?? '',
    displayName: (id) => nodes[id]?.displayName ?? '',
    downstream: (id) => nodes[id]?.downstream ?? [],
    upstream: (id) => nodes[id]?.upstream ?? [],
    parentId: (id) => nodes[id]?.parentId ?? null,
    childrenOf: (id) => children.get(id) ?? [],
    roleOf: (id) => nodes[id]?.role ?? 'plain',
    prologue: () => prologue,
  };
}

/** The runnable canvas from a parsed DSL, its checked components and its loops' first items. */
export function assembleCanvas(dsl: CanvasDsl, nodes: Record<string, CompiledNode>, loopStarts: Record<string, string>): CompiledCanvas {
  return {
    dsl: { ...dsl, globals: { ...DEFAULT_GLOBALS, ...dsl.globals } },
    nodes,
    streaming: streamingProducers(nodes),
    envDefaults: envDefaults(dsl),
    origins: readOrigins(dsl),
    loopStarts,
    view: makeView(nodes),
  };
}
