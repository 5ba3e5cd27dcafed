/**
 * Checks that catch canvases which validate structurally but could never run as written:
 * documents too deep to walk or holding text the store refuses, a component id JavaScript cannot
 * keep as a key, components no path from `begin` reaches, `{sys.*}` variables that do not exist
 * and references to outputs a component does not declare. Each problem names its JSON path.
 */
import { scanParamRefs } from '../components/common';
import type { AnyComponentDef } from '../components/registry';
import type { ExecutionParams, ParamRef } from '../components/definition';
import { formatJsonPath, type PathSegment } from '../dsl/jsonPath';
import { findBadText, MAX_JSON_DEPTH, valueTooDeep } from '../dsl/jsonShape';
import { DEFAULT_GLOBALS, type CanvasDsl } from '../dsl/schema';
import type { Problem } from '../../errors';

/** What these checks need of a compiled node (kept structural: no import of compile.ts). */
interface CheckedNode {
  readonly id: string;
  readonly def: AnyComponentDef;
  readonly params: ExecutionParams;
  readonly downstream: readonly string[];
  readonly parentId: string | null;
}

/** Outputs the engine sets on every component, whatever its definition declares. */
const ENGINE_OUTPUTS = new Set(['_ERROR', '_elapsed_time', '_created_time', '_next']);
/** A Webhook-mode Begin outputs the request's parts (`{begin@body.order_id}`), whatever its inputs. */
const WEBHOOK_OUTPUTS = ['query', 'headers', 'body'];

function isWebhookBegin(node: CheckedNode): boolean {
  return node.def.role === 'begin' && (node.params as { mode?: unknown }).mode === 'Webhook';
}

/** Keys a plain object cannot hold as data (`obj[k] = v` changes its prototype instead). */
const RESERVED_IDS = new Set(['__proto__']);

/** Problems found before the DSL is parsed; when there are any, nothing else should walk it. */
export function findDocumentProblems(input: unknown, base: PathSegment[]): Problem[] {
  if (valueTooDeep(input, MAX_JSON_DEPTH)) {
    return [{ path: formatJsonPath(base, '$'), message: `the DSL nests arrays/objects deeper than the limit of ${MAX_JSON_DEPTH} levels` }];
  }
  const problems: Problem[] = findBadText(input, base, '$');
  const components = typeof input === 'object' && input !== null ? (input as { components?: unknown }).components : undefined;
  if (typeof components === 'object' && components !== null) {
    for (const id of Object.keys(components)) {
      if (RESERVED_IDS.has(id))
        problems.push({
          path: formatJsonPath([...base, 'components', id], '$'),
          message: `"${id}" cannot be a component id (it is reserved in JavaScript objects); rename the component`,
        });
    }
  }
  return problems;
}

/** Components no path from `begin` reaches: they could never run. */
export function findUnreachable(dsl: CanvasDsl, nodes: Readonly<Record<string, CheckedNode>>, base: PathSegment[]): Problem[] {
  if (!nodes.begin) return [];
  const children = new Map<string, string[]>();
  for (const node of Object.values(nodes)) if (node.parentId) children.set(node.parentId, [...(children.get(node.parentId) ?? []), node.id]);
  const seen = new Set<string>(['begin']);
  const queue = ['begin'];
  while (queue.length > 0) {
    const node = nodes[queue.shift()!];
    if (!node) continue;
    // A loop runs its body (entered through its item); routers and error handlers jump by params.
    const next = [
      ...node.downstream,
      ...(node.def.targets?.(node.params) ?? []).map((t) => t.target),
      ...node.params.exception_goto,
      ...(children.get(node.id) ?? []),
    ];
    for (const id of next) {
      if (!seen.has(id) && Object.hasOwn(nodes, id)) {
        seen.add(id);
        queue.push(id);
      }
    }
  }
  return Object.keys(dsl.components)
    .filter((id) => Object.hasOwn(nodes, id) && !seen.has(id))
    .map((id) => ({
      path: formatJsonPath([...base, 'components', id], '$'),
      message: `component "${id}" is not reachable from "begin" (no downstream, router or loop path leads to it), so it could never run; connect or remove it`,
    }));
}

function refsOf(node: CheckedNode, rawParams: unknown): ParamRef[] {
  return node.def.paramRefs ? node.def.paramRefs(node.params) : scanParamRefs(rawParams);
}

/** `{sys.*}` variables that do not exist and component outputs that are never declared. */
export function findReferenceProblems(dsl: CanvasDsl, nodes: Readonly<Record<string, CheckedNode>>, base: PathSegment[]): Problem[] {
  const globals = new Set([...Object.keys(DEFAULT_GLOBALS), ...Object.keys(dsl.globals)]);
  const problems: Problem[] = [];
  const seen = new Set<string>();
  for (const node of Object.values(nodes)) {
    for (const { path, ref } of refsOf(node, dsl.components[node.id]?.obj.params)) {
      const at = formatJsonPath([...base, 'components', node.id, 'obj', 'params', ...path], '$');
      if (seen.has(`${at}|${ref.expr}`)) continue;
      seen.add(`${at}|${ref.expr}`);
      if (ref.kind === 'global') {
        if (ref.name.toLowerCase().startsWith('sys.') && !globals.has(ref.name)) {
          problems.push({
            path: at,
            message: `reference {${ref.expr}} names no system variable (known: ${[...globals].filter((g) => g.startsWith('sys.')).join(', ')})`,
          });
        }
        continue;
      }
      const target = Object.hasOwn(nodes, ref.componentId) ? nodes[ref.componentId] : undefined;
      if (!target || ENGINE_OUTPUTS.has(ref.output)) continue;
      const declared = [...target.def.outputNames(target.params), ...(isWebhookBegin(target) ? WEBHOOK_OUTPUTS : [])];
      // An Iteration that declares nothing collects each body component under its id (early canvases).
      if (declared.length === 0 && Object.values(nodes).some((n) => n.parentId === target.id && n.id === ref.output)) continue;
      if (!declared.includes(ref.output)) {
        problems.push({
          path: at,
          message: `reference {${ref.expr}} reads output "${ref.output}", which component "${ref.componentId}" does not declare (it has: ${declared.join(', ') || 'no outputs'})`,
        });
      }
    }
  }
  return problems;
}
