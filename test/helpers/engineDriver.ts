/**
 * Drives the pure engine in unit tests: model answers come from a per-component script, so a test
 * states what each model says and checks what the engine does with it. (Integration tests use
 * the real activities against the scripted OpenAI-compatible HTTP server instead.)
 */
import type { LlmChatRequest, LlmChatResult } from '../../src/components/calls';
import { runInProcess, type CallResult, type EngineCall, type RunStartInput } from '../../src/engine';
import type { CompiledCanvas } from '../../src/engine';
import type { RunEvent } from '../../src/engine/events';

export type Answer = string | { error: string } | ((request: LlmChatRequest) => string | { error: string });

export interface Driver {
  calls: EngineCall[];
  run(canvas: CompiledCanvas, input?: Partial<RunStartInput>): ReturnType<typeof runInProcess>;
}

export function answerResult(content: string): LlmChatResult {
  return { content, reasoning: '', usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 }, model: 'scripted', finishReason: 'stop' };
}

/** A driver whose model answers come from `script[componentId]`, consumed in order. */
export function driver(script: Record<string, Answer[]>): Driver {
  const calls: EngineCall[] = [];
  const queues = Object.fromEntries(Object.entries(script).map(([k, v]) => [k, [...v]]));
  let clock = 1_700_000_000_000;
  const exec = async (call: EngineCall): Promise<CallResult> => {
    calls.push(call);
    const queue = queues[call.componentId];
    const next = queue?.shift();
    if (next === undefined) return { callId: call.callId, ok: false, error: `no scripted answer left for ${call.componentId}` };
    const answer = typeof next === 'function' ? next(call.call.request) : next;
    if (typeof answer === 'object') return { callId: call.callId, ok: false, error: answer.error };
    return { callId: call.callId, ok: true, value: answerResult(answer) };
  };
  return {
    calls,
    run: (canvas, input = {}) =>
      runInProcess(canvas, { runId: 'run1', messageId: 'msg1', query: 'hello', ...input }, exec, { now: () => (clock += 1000) }),
  };
}

/** `event` names, with the component id for node events, e.g. `node_started:begin`. */
export function timeline(events: RunEvent[]): string[] {
  return events.map((e) => {
    const id = e.data.component_id;
    if (e.event === 'message') return `message:${String(e.data.content)}`;
    return typeof id === 'string' ? `${e.event}:${id}` : e.event;
  });
}
