/**
 * What a component reports while it works, as the run's `tool_call` event carries it (the engine
 * adds the component's id). Its schema lives here, with its producer, so the engine's event map
 * (src/core/engine/eventMap.ts) and the Agent that emits it share one definition.
 */
import { z } from 'zod';

/** One tool call of an Agent's round: RAGFlow's tool-use trace entry, summarized for the stream. */
export const ToolCallNoticeData = z.strictObject({
  round: z.number().int(),
  tool_name: z.string(),
  function: z.string(),
  arguments: z.unknown(),
  /** The result's first 300 characters. */
  result: z.string(),
  error: z.string().nullable(),
  elapsed_time: z.number(),
  /** The run a sub-agent tool started. */
  child_task_id: z.string().optional(),
});
export type ToolCallNoticeData = z.infer<typeof ToolCallNoticeData>;
