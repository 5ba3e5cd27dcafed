/**
 * Reading a canvas from a request: RAGFlow's export form or the bare DSL, as an object or a
 * JSON string, normalized and validated with every problem reported by JSON path.
 */
import { readCanvasInput } from '../src/dsl/input';
import type { PathSegment } from '../src/dsl/jsonPath';
import { compileCanvas, type CompiledCanvas } from '../src/engine';
import { AppError, describeProblems } from '../src/errors';

export interface AcceptedCanvas {
  dsl: Record<string, unknown>;
  compiled: CompiledCanvas;
  meta: ReturnType<typeof readCanvasInput>['meta'];
}

/** Normalizes and validates a submitted DSL; throws DSL_INVALID listing every problem (warnings included). */
export function acceptCanvas(value: unknown, base: PathSegment[] = ['dsl']): AcceptedCanvas {
  const input = readCanvasInput(value, base);
  const result = compileCanvas(input.dsl, { base: input.base });
  // What the engine would only warn about (components that could never run) is refused at save.
  const problems = result.ok ? result.warnings : result.problems;
  if (!result.ok || problems.length > 0) throw new AppError('DSL_INVALID', describeProblems('Invalid DSL', problems), { problems });
  return { dsl: input.dsl as Record<string, unknown>, compiled: result.canvas, meta: input.meta };
}
