/**
 * Reading a canvas from a request: RAGFlow's export form or the bare DSL, as an object or a
 * JSON string, normalized and validated with every problem reported by JSON path.
 */
import { readCanvasInput } from '../src/core/dsl/input';
import type { PathSegment } from '../src/core/dsl/jsonPath';
import { compileCanvas, type CompiledCanvas } from '../src/core/engine';
import { AppError, describeProblems, type Problem } from '../src/errors';

export interface AcceptedCanvas {
  dsl: Record<string, unknown>;
  compiled: CompiledCanvas;
  meta: ReturnType<typeof readCanvasInput>['meta'];
  /** Saved anyway, as RAGFlow does: unreachable components, and names of missing components in a downstream, branch, exception_goto or reference. */
  warnings: Problem[];
}

/** Normalizes and validates a submitted DSL; throws DSL_INVALID listing every problem, returns the warnings. */
export function acceptCanvas(value: unknown, base: PathSegment[] = ['dsl']): AcceptedCanvas {
  const input = readCanvasInput(value, base);
  const result = compileCanvas(input.dsl, { base: input.base });
  // References that can only read "" (unknown sys.*, undeclared outputs) are refused at save; the
  // engine tolerates them so that canvases stored before this check keep running.
  const problems = result.ok ? result.referenceProblems : result.problems;
  if (!result.ok || problems.length > 0) throw new AppError('DSL_INVALID', describeProblems('Invalid DSL', problems), { problems });
  // Stored as the compiler read it (empty values of the wrong kind as their defaults).
  return { dsl: result.source as Record<string, unknown>, compiled: result.canvas, meta: input.meta, warnings: result.warnings };
}
