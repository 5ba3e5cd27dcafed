/**
 * The floor harness's activities (bench/floor/harness.ts): they do nothing but say when they
 * began, except `floorModel`, which streams one answer from a model the way a model node's
 * activity must at the least (the same client, no events written).
 */
import { Context } from '@temporalio/activity';
import { clientFor } from '../../src/io/llm/client';

export interface FloorActivities {
  floorActivity(i: number): Promise<number>;
  floorLocal(i: number): Promise<number>;
  floorModel(i: number): Promise<number>;
}

export interface FloorActivityOptions {
  /** Called as each activity starts, so a harness can time start → activity running. */
  began?: (workflowId: string) => void;
  /** The OpenAI-compatible endpoint `floorModel` streams from (it fails without one). */
  modelUrl?: string;
}

export function createFloorActivities(opts: FloorActivityOptions = {}): FloorActivities {
  const began = opts.began ?? (() => {});
  return {
    async floorActivity(i) {
      began(Context.current().info.workflowExecution?.workflowId ?? '');
      return i;
    },
    async floorLocal(i) {
      return i;
    },
    async floorModel(i) {
      if (!opts.modelUrl) throw new Error('floorModel needs a model endpoint (createFloorWorker with a modelUrl)');
      const stream = await clientFor({ baseUrl: opts.modelUrl, apiKey: 'x' }).chat.completions.create(
        { model: 'floor', messages: [{ role: 'user', content: `step ${i}` }], stream: true },
        { signal: Context.current().cancellationSignal },
      );
      let chars = 0;
      for await (const chunk of stream) chars += chunk.choices[0]?.delta.content?.length ?? 0;
      return chars;
    },
  };
}
