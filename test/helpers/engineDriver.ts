/**
 * Drives the pure engine in unit tests through the shared run loop (src/core/engine/loop.ts, in process): call results come from a per-component script, so a test
 * states what each model (or tool) answers and checks what the engine does with it. (Integration
 * tests use the real activities against the scripted OpenAI-compatible HTTP server instead.)
 */
import type { LlmChatRequest, LlmChatResult, ToolCallRequest } from '../../src/core/components/callContracts';
import {
  continueInProcess,
  expirePause,
  runInProcess,
  submitInputs,
  type CallResult,
  type EngineCall,
  type InProcessOptions,
  type InputsSubmission,
  type RunStartInput,
  type RunState,
} from '../../src/core/engine';
import type { CompiledCanvas } from '../../src/core/engine';
import type { RunEvent } from '../../src/core/engine/runEvents';
import { componentOf, expectEventsInMap } from './runEvents';

/** A scripted answer: model text, model tool calls, an error, or a function of the call. */
export type Answer =
  | string
  | { error: string }
  | { toolCalls: Array<{ name: string; arguments: unknown; id?: string }>; content?: string }
  | { value: unknown }
  | ((call: EngineCall) => Answer);

export interface Driver {
  calls: EngineCall[];
  /** Runs through the shared run loop; `loop` answers pauses and asks for a cancel between steps. */
  run(canvas: CompiledCanvas, input?: Partial<RunStartInput>, loop?: Pick<InProcessOptions, 'onPause' | 'cancelReason'>): ReturnType<typeof runInProcess>;
  /** Submits form values to a paused run and carries it on (throws when the engine refuses them). */
  submit(canvas: CompiledCanvas, state: RunState, submission: InputsSubmission): ReturnType<typeof runInProcess>;
  /** The pause expired; the run goes on. */
  expire(canvas: CompiledCanvas, state: RunState): ReturnType<typeof runInProcess>;
}

export function answerResult(content: string, toolCalls: ToolCallRequest[] = []): LlmChatResult {
  return {
    content,
    reasoning: '',
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    model: 'scripted',
    finishReason: toolCalls.length ? 'tool_calls' : 'stop',
    toolCalls,
  };
}

/** The model request of an llmChat call (throws for other calls: a test bug). */
export function llmRequest(call: EngineCall): LlmChatRequest {
  if (call.call.activity !== 'llmChat') throw new Error(`expected an llmChat call, got ${call.call.activity}`);
  return call.call.request;
}

function toResult(call: EngineCall, answer: Answer): CallResult {
  if (typeof answer === 'function') return toResult(call, answer(call));
  if (typeof answer === 'string') return { callId: call.callId, ok: true, value: answerResult(answer) };
  if ('error' in answer) return { callId: call.callId, ok: false, error: answer.error };
  if ('value' in answer) return { callId: call.callId, ok: true, value: answer.value };
  const toolCalls = answer.toolCalls.map((t, i) => ({
    id: t.id ?? `call_${i}`,
    name: t.name,
    arguments: typeof t.arguments === 'string' ? t.arguments : JSON.stringify(t.arguments),
  }));
  return { callId: call.callId, ok: true, value: answerResult(answer.content ?? '', toolCalls) };
}

/**
 * A driver whose answers come from `script[key]`, consumed in order; the key is the component id,
 * or `componentId:activity` for a component's non-model calls (e.g. `Agent:a:toolInvoke`).
 */
export function driver(script: Record<string, Answer[]>): Driver {
  const calls: EngineCall[] = [];
  const queues = Object.fromEntries(Object.entries(script).map(([k, v]) => [k, [...v]]));
  let clock = 1_700_000_000_000;
  const exec = async (call: EngineCall): Promise<CallResult> => {
    calls.push(call);
    const key = call.call.activity === 'llmChat' ? call.componentId : `${call.componentId}:${call.call.activity}`;
    const next = queues[key]?.shift();
    if (next === undefined) return { callId: call.callId, ok: false, error: `no scripted answer left for ${key}` };
    return toResult(call, next);
  };
  // Every event a driven run produces must be one the event map describes.
  const checked = async (running: ReturnType<typeof runInProcess>) => {
    const result = await running;
    expectEventsInMap(result.events);
    return result;
  };
  return {
    calls,
    run: (canvas, input = {}, loop = {}) =>
      checked(runInProcess(canvas, { runId: 'run1', messageId: 'msg1', query: 'hello', ...input }, exec, { ...loop, now: () => (clock += 1000) })),
    submit: async (canvas, state, submission) => {
      const step = submitInputs(canvas, state, submission, (clock += 1000));
      if ('error' in step) throw new Error(step.error);
      return checked(continueInProcess(canvas, step, exec, { now: () => (clock += 1000) }));
    },
    expire: (canvas, state) => checked(continueInProcess(canvas, expirePause(canvas, state, 30, (clock += 1000)), exec, { now: () => (clock += 1000) })),
  };
}

/** `event` names, with the component id for node events, e.g. `node_started:begin`. */
export function timeline(events: RunEvent[]): string[] {
  return events.map((e) => {
    const id = componentOf(e);
    if (e.event === 'message') return `message:${String(e.data.content)}`;
    return typeof id === 'string' ? `${e.event}:${id}` : e.event;
  });
}
