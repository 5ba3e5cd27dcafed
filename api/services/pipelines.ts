/**
 * Ingestion pipeline canvases (RAGFlow's `canvas_category: "dataflow_canvas"`) through the agent
 * routes, as RAGFlow keeps them: created with `POST /api/v1/agents` and that category, listed with
 * `?canvas_category=dataflow_canvas`, versioned on every DSL update. Their DSL is validated by the
 * pipeline compiler (src/core/pipeline/compile.ts) with the same error shape as an agent's (code
 * 101, every problem by JSON path); a dataset's `pipeline_id` must name one of them.
 */
import { compilePipelineDetailed, isPipelineDsl, PIPELINE_CANVAS_CATEGORY } from '../../src/core/pipeline/compile';
import type { PathSegment } from '../../src/core/dsl/jsonPath';
import { AppError, describeProblems, type Problem } from '../../src/errors';
import type { CanvasRecord, Store } from '../../src/io/store/contract';
import type { AcceptedCanvas } from '../canvasInput';

/** RAGFlow's CanvasCategory.DataFlow. */
export const PIPELINE_CATEGORY = PIPELINE_CANVAS_CATEGORY;

/** Whether a create request is for a pipeline: RAGFlow's `canvas_category`, else the DSL says so. */
export function isPipelineRequest(body: { canvas_category?: unknown; dsl?: unknown }): boolean {
  if (typeof body.canvas_category === 'string' && body.canvas_category) return body.canvas_category === PIPELINE_CATEGORY;
  return isPipelineDsl(body.dsl);
}

/** Normalizes and validates a pipeline DSL; throws DSL_INVALID listing every problem by JSON path. */
export function acceptPipelineCanvas(value: unknown, base: PathSegment[] = ['dsl']): Omit<AcceptedCanvas, 'compiled'> {
  const { input, result } = compilePipelineDetailed(value, { base });
  if (!result.ok) {
    const problems: Problem[] = result.problems.map((p) => ({ path: p.path, message: p.message }));
    throw new AppError('DSL_INVALID', describeProblems('Invalid pipeline DSL', problems), { problems });
  }
  const warnings: Problem[] = (result.warnings ?? []).map((p) => ({ path: p.path, message: p.message }));
  return { dsl: result.dsl ?? (input.dsl as Record<string, unknown>), meta: input.meta, warnings };
}

/** The tenant's pipeline canvas `id`; a clear RAGFlow data error (102) naming `pipeline_id` otherwise. */
export async function requirePipelineCanvas(store: Store, tenantId: string, id: string): Promise<CanvasRecord> {
  const canvas = await store.canvases.get(tenantId, id);
  if (!canvas)
    throw new AppError('NOT_FOUND', `pipeline_id: no ingestion pipeline '${id}' (create one with POST /api/v1/agents and canvas_category "dataflow_canvas")`, {
      ragflowCode: 102,
    });
  if (canvas.canvas_category !== PIPELINE_CATEGORY)
    throw new AppError('NOT_FOUND', `pipeline_id: '${id}' is an agent (canvas_category "${canvas.canvas_category}"), not an ingestion pipeline`, {
      ragflowCode: 102,
    });
  return canvas;
}
