/**
 * Legacy normalization, applied to a DSL before validation and storage.
 *
 * 1. RAGFlow's own `dsl_migration`: renamed components (`Splitter` → `TokenChunker`, ...) with
 *    their ids, references, graph nodes and edges.
 * 2. Shapes RAGFlow v0.x canvases used that later versions changed: Message `messages` →
 *    `content`, Categorize `to`/`examples` given as strings, a path stored as a list of turns.
 *
 * Business params are otherwise left alone; old components (`Generate`, `Answer`) keep their
 * names and are given their old semantics by their own component definitions.
 */
import { valueTooDeep } from './jsonShape';

const COMPONENT_RENAMES: Readonly<Record<string, string>> = {
  Splitter: 'TokenChunker',
  HierarchicalMerger: 'TitleChunker',
  PDFGenerator: 'DocGenerator',
};

const NODE_TYPE_RENAMES: Readonly<Record<string, string>> = { splitterNode: 'chunkerNode' };

const REF_ID_PATTERN = /(\{+\s*)([A-Za-z0-9:_-]+)(@[A-Za-z0-9_.-]+)(\s*\}+)/g;

type Json = unknown;
type JsonObject = Record<string, Json>;

function isObject(v: Json): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function renamedId(id: string): string {
  for (const [oldName, newName] of Object.entries(COMPONENT_RENAMES)) {
    if (id.startsWith(`${oldName}:`)) return `${newName}:${id.slice(oldName.length + 1)}`;
  }
  return id;
}

function rewriteValue(value: Json, idMap: ReadonlyMap<string, string>): Json {
  if (typeof value === 'string') {
    const whole = idMap.get(value);
    if (whole !== undefined) return whole;
    return value.replace(REF_ID_PATTERN, (_m, open: string, id: string, rest: string, close: string) => open + (idMap.get(id) ?? id) + rest + close);
  }
  if (Array.isArray(value)) return value.map((v) => rewriteValue(v, idMap));
  if (isObject(value)) {
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value)) out[k] = rewriteValue(v, idMap);
    return out;
  }
  return value;
}

function migrateRenamedComponents(dsl: JsonObject): void {
  const components = dsl.components;
  if (!isObject(components)) return;
  const idMap = new Map<string, string>();
  for (const id of Object.keys(components)) {
    const next = renamedId(id);
    if (next !== id) idMap.set(id, next);
  }
  const hasRenamedType = Object.values(components).some(
    (c) => isObject(c) && isObject(c.obj) && typeof c.obj.component_name === 'string' && c.obj.component_name in COMPONENT_RENAMES,
  );
  if (idMap.size === 0 && !hasRenamedType) return;

  const rewritten: JsonObject = {};
  for (const [id, comp] of Object.entries(components)) {
    const next = rewriteValue(comp, idMap);
    if (isObject(next) && isObject(next.obj) && typeof next.obj.component_name === 'string') {
      next.obj.component_name = COMPONENT_RENAMES[next.obj.component_name] ?? next.obj.component_name;
    }
    rewritten[idMap.get(id) ?? id] = next;
  }
  dsl.components = rewritten;

  const graph = dsl.graph;
  if (isObject(graph)) {
    if (Array.isArray(graph.nodes)) {
      for (const node of graph.nodes) {
        if (!isObject(node)) continue;
        if (typeof node.id === 'string') node.id = idMap.get(node.id) ?? node.id;
        if (typeof node.parentId === 'string') node.parentId = idMap.get(node.parentId) ?? node.parentId;
        if (typeof node.type === 'string') node.type = NODE_TYPE_RENAMES[node.type] ?? node.type;
        if (isObject(node.data)) {
          const data = node.data;
          if (typeof data.label === 'string') data.label = COMPONENT_RENAMES[data.label] ?? data.label;
          if (typeof data.name === 'string') data.name = COMPONENT_RENAMES[data.name] ?? data.name;
          if ('form' in data) data.form = rewriteValue(data.form, idMap);
        }
      }
    }
    if (Array.isArray(graph.edges)) {
      const longestFirst = [...idMap.entries()].sort((a, b) => b[0].length - a[0].length);
      for (const edge of graph.edges) {
        if (!isObject(edge)) continue;
        for (const key of ['source', 'target'] as const) {
          const v = edge[key];
          if (typeof v === 'string') edge[key] = idMap.get(v) ?? v;
        }
        if (typeof edge.id === 'string') {
          let id = edge.id;
          for (const [from, to] of longestFirst) id = id.split(from).join(to);
          edge.id = id;
        }
      }
    }
  }
  for (const key of ['history', 'messages', 'reference']) {
    if (key in dsl) dsl[key] = rewriteValue(dsl[key], idMap);
  }
}

function normalizeLegacyParams(dsl: JsonObject): void {
  const components = dsl.components;
  if (!isObject(components)) return;
  for (const comp of Object.values(components)) {
    if (!isObject(comp) || !isObject(comp.obj)) continue;
    const name = comp.obj.component_name;
    if (!isObject(comp.obj.params)) continue;
    const params = comp.obj.params;
    if (name === 'Message' && params.content === undefined && Array.isArray(params.messages)) {
      params.content = params.messages;
    }
    if (name === 'Categorize' && isObject(params.category_description)) {
      for (const cat of Object.values(params.category_description)) {
        if (!isObject(cat)) continue;
        if (typeof cat.to === 'string') cat.to = cat.to ? [cat.to] : [];
        if (typeof cat.examples === 'string') cat.examples = cat.examples.split('\n').filter((l) => l.trim() !== '');
      }
    }
  }
  // v0.x kept the path as turns ([["begin"], ["answer:0", ...]]); it is run-time state, flatten it.
  if (Array.isArray(dsl.path)) dsl.path = dsl.path.flat().filter((p) => typeof p === 'string');
}

/**
 * Returns a normalized deep copy of a bare DSL object. Input that is not an object is returned
 * unchanged so that validation reports it.
 */
export function normalizeDsl<T>(dsl: T): T {
  // Too deep to copy without overflowing the stack: returned as is, for validation to report.
  if (!isObject(dsl) || valueTooDeep(dsl)) return dsl;
  // JSON round trip rather than structuredClone: this also runs inside the workflow sandbox.
  const copy = JSON.parse(JSON.stringify(dsl)) as JsonObject;
  migrateRenamedComponents(copy);
  normalizeLegacyParams(copy);
  return copy as T;
}
