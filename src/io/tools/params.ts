/**
 * A tool's real params (secrets included): read from the canvas version its run started from,
 * never from workflow history. Cached per process; versions never change once saved.
 */
import type { PathSegment } from '../../core/dsl/jsonPath';
import { AppError } from '../../errors';
import type { Store } from '../store/contract';

const cache = new Map<string, Record<string, unknown>>();
const MAX_CACHED = 500;

function walk(root: unknown, path: PathSegment[]): unknown {
  let cur = root;
  for (const seg of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string | number, unknown>)[seg];
  }
  return cur;
}

export async function loadToolParams(store: Store, runId: string, paramsPath: PathSegment[]): Promise<{ params: Record<string, unknown>; tenantId: string }> {
  const run = await store.runs.getById(runId);
  if (!run) throw new AppError('NOT_FOUND', `run ${runId} does not exist`);
  const key = `${run.canvas_version_id ?? run.canvas_id}\u0000${JSON.stringify(paramsPath)}`;
  const hit = cache.get(key);
  if (hit) return { params: hit, tenantId: run.tenant_id };
  const version = run.canvas_version_id ? await store.canvases.getVersion(run.tenant_id, run.canvas_id, run.canvas_version_id) : null;
  const dsl = version?.dsl ?? (await store.canvases.get(run.tenant_id, run.canvas_id))?.dsl;
  if (!dsl) throw new AppError('NOT_FOUND', `the canvas of run ${runId} no longer exists`);
  const params = walk(dsl, paramsPath);
  if (typeof params !== 'object' || params === null) throw new AppError('COMPONENT_PARAMS', `no tool params at ${paramsPath.join('.')} in the run's canvas`);
  if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
  cache.set(key, params as Record<string, unknown>);
  return { params: params as Record<string, unknown>, tenantId: run.tenant_id };
}
