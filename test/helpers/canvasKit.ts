/**
 * Builds canvases for tests from a compact description: upstream lists are derived from
 * downstream ones, so a test states only the graph it means.
 */
import { compileCanvas, type CompiledCanvas } from '../../src/core/engine';

export interface NodeSpec {
  name: string;
  params?: Record<string, unknown>;
  downstream?: string[];
  parent_id?: string;
}

export function dsl(nodes: Record<string, NodeSpec>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const upstream: Record<string, string[]> = {};
  for (const [id, n] of Object.entries(nodes)) {
    for (const d of n.downstream ?? []) (upstream[d] ??= []).push(id);
  }
  const components: Record<string, unknown> = {};
  for (const [id, n] of Object.entries(nodes)) {
    components[id] = {
      obj: { component_name: n.name, params: n.params ?? {} },
      downstream: n.downstream ?? [],
      upstream: upstream[id] ?? [],
      ...(n.parent_id ? { parent_id: n.parent_id } : {}),
    };
  }
  return {
    components,
    history: [],
    path: [],
    retrieval: [],
    globals: { 'sys.query': '', 'sys.user_id': '', 'sys.conversation_turns': 0, 'sys.files': [] },
    ...extra,
  };
}

export function compile(nodes: Record<string, NodeSpec>, extra: Record<string, unknown> = {}): CompiledCanvas {
  const r = compileCanvas(dsl(nodes, extra));
  if (!r.ok) throw new Error(`test canvas is invalid:\n${r.problems.map((p) => `${p.path}: ${p.message}`).join('\n')}`);
  return r.canvas;
}
