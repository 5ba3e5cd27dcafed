/**
 * Runs a compiled pipeline in this process with exactly the protocol the `ingestPipeline`
 * workflow uses: per step, `planItems`; a step with items runs them through `runItems` in
 * batches and folds the answers with `applyItems`; any other step runs whole with `runStep`.
 * Payloads are round-tripped through JSON between steps, as the workflow's blobs are, so a step
 * that only works on live objects fails here too. For unit tests and the benchmark baseline.
 */
import type { CompiledPipeline } from '../../../core/pipeline/types';
import type { PipelineFile, PipelinePayload, PipelineServices, PipelineSteps } from './contract';
import { pipelineSteps } from './steps';

export interface InProcessOptions {
  /** Items per `runItems` call (the workflow's batch size); default 16. */
  batchSize?: number;
  signal?: AbortSignal;
  steps?: PipelineSteps;
  /** Called after each step with its output. */
  onStep?: (index: number, stepId: string, output: PipelinePayload) => void;
}

const roundTrip = (p: PipelinePayload): PipelinePayload => JSON.parse(JSON.stringify(p)) as PipelinePayload;

export async function runPipelineInProcess(
  pipeline: CompiledPipeline,
  file: PipelineFile,
  services: PipelineServices,
  opts: InProcessOptions = {},
): Promise<PipelinePayload> {
  const steps = opts.steps ?? pipelineSteps;
  const signal = opts.signal ?? new AbortController().signal;
  const batch = Math.max(1, opts.batchSize ?? 16);
  let payload: PipelinePayload = { name: file.name, file };
  for (const [index, step] of pipeline.steps.entries()) {
    const plan = steps.planItems(step, payload);
    let output: PipelinePayload;
    if (plan.items > 0) {
      const results: unknown[] = [];
      for (let from = 0; from < plan.items; from += batch) {
        const answers = await steps.runItems(step, payload, from, Math.min(plan.items, from + batch), services, signal);
        results.push(...(JSON.parse(JSON.stringify(answers)) as unknown[]));
      }
      output = steps.applyItems(step, payload, results);
    } else output = await steps.runStep(step, payload, services, signal);
    payload = roundTrip(output);
    opts.onStep?.(index, step.id, payload);
  }
  return payload;
}
