/**
 * Every event the engine produces fits the event map (src/core/engine/eventMap.ts): the project's
 * example canvases, the replay corpus's canvases and (when present beside the project) RAGFlow's
 * own canvases run through the in-process engine with a model that answers anything, an Agent's
 * first round calling its first tool, pauses left to expire, and one run canceled. A producer that
 * emits an event or a field the map does not describe fails here.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCanvasInput } from '../../src/core/dsl/input';
import { compileCanvas, runInProcess, type CallResult, type CompiledCanvas, type EngineCall } from '../../src/core/engine';
import type { RunEvent } from '../../src/core/engine/runEvents';
import { answerResult } from '../helpers/engineDriver';
import { expectEventsInMap } from '../helpers/runEvents';
import type { ScriptedLlm } from '../helpers/scriptedLlm';
import type { RecordingContext, ScenarioSet } from '../replay/scenario';
import agentScenarios from '../replay/scenarios/agents';
import canvasScenarios from '../replay/scenarios/canvas';
import catalogScenarios from '../replay/scenarios/catalog';

const root = path.resolve(__dirname, '../..');

function jsonCanvases(dir: string): Array<[string, Record<string, unknown>]> {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f): [string, Record<string, unknown>] => [
      `${path.basename(dir)}/${f}`,
      JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as Record<string, unknown>,
    ]);
}

/** RAGFlow's canvases live beside the project (../shared), or beside the checkout a worktree hangs off. */
const ragflowDir = [path.resolve(root, '../shared/ragflow-dsl'), path.resolve(root, '../../shared/ragflow-dsl')].find((d) => existsSync(d));
if (!ragflowDir) console.warn('[events] RAGFlow’s canvases (../shared/ragflow-dsl) are absent: only the project’s canvases run');

/** The replay corpus's canvases (its scripted model is not needed: the engine's calls are answered here). */
function scenarioCanvases(): Array<[string, Record<string, unknown>]> {
  const noModel = { whenPromptIncludes: () => undefined } as unknown as ScriptedLlm;
  const ctx = { llm: noModel } as unknown as RecordingContext;
  const sets: ScenarioSet[] = [canvasScenarios, agentScenarios, catalogScenarios];
  return sets.flatMap((set) =>
    Object.entries(set(ctx)).flatMap(([name, s]): Array<[string, Record<string, unknown>]> =>
      'canvas' in s && typeof s.canvas !== 'function' ? [[`replay/${name}`, s.canvas]] : [],
    ),
  );
}

const canvases: Array<[string, Record<string, unknown>]> = [
  ...jsonCanvases(path.join(root, 'examples')),
  ...scenarioCanvases(),
  ...(ragflowDir ? [...jsonCanvases(path.join(ragflowDir, 'examples')), ...jsonCanvases(path.join(ragflowDir, 'templates'))] : []),
];

function compiled(raw: Record<string, unknown>): CompiledCanvas {
  const input = readCanvasInput(raw);
  const r = compileCanvas(input.dsl, { base: input.base });
  if (!r.ok) throw new Error(r.problems.map((p) => `${p.path}: ${p.message}`).join('\n'));
  return r.canvas;
}

/** Answers every call: a model says something (an Agent first calls its first tool), tools answer, files fail. */
function answerAnything(): (call: EngineCall) => Promise<CallResult> {
  const toolAsked = new Set<string>();
  return async (call) => {
    const ok = (value: unknown): CallResult => ({ callId: call.callId, ok: true, value });
    const { activity, request } = call.call;
    if (activity === 'llmChat') {
      const tool = request.tools?.[0]?.function.name;
      if (tool && !toolAsked.has(call.componentId)) {
        toolAsked.add(call.componentId);
        return ok(answerResult('', [{ id: 'call_0', name: tool, arguments: '{"query": "q"}' }]));
      }
      return ok(answerResult('{"answer": "fine"}'));
    }
    if (activity === 'toolInvoke') return ok({ text: 'a result', outputs: { formalized_content: 'a result' }, elapsedMs: 3 });
    if (activity === 'mcpListTools') return ok({ tools: [] });
    if (activity === 'subAgent')
      return ok({ content: 'sub answer', childTaskId: 'child-1', usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2, calls: 1 }, elapsedMs: 5 });
    if (activity === 'speak') return ok({ bytes: 4 });
    return { callId: call.callId, ok: false, error: `${activity} is not available in this test` };
  };
}

async function run(canvas: CompiledCanvas, cancel = false): Promise<RunEvent[]> {
  let clock = 1_700_000_000_000;
  let steps = 0;
  const { events } = await runInProcess(canvas, { runId: 'run-1', messageId: 'msg-1', query: 'What is the refund policy?', speech: true }, answerAnything(), {
    now: () => (clock += 250),
    onPause: () => ({ expired: 30 }),
    cancelReason: () => (cancel && ++steps > 1 ? 'the test cancels it' : null),
  });
  return events;
}

describe('events the engine produces', () => {
  it('finds canvases to run', () => {
    expect(canvases.length).toBeGreaterThanOrEqual(20);
  });

  const seen = new Set<string>();

  it.each(canvases)('fit the event map: %s', async (_name, raw) => {
    const canvas = compiled(raw);
    for (const cancel of [false, true]) {
      const events = await run(canvas, cancel);
      events.forEach((e) => seen.add(e.event));
      expectEventsInMap(events);
    }
  });

  it('covered the engine’s events', () => {
    // The engine never emits message_retry (a retried stream's activity does) nor child_event (the run activity mirrors a child's events).
    const engineEvents = [
      'workflow_started',
      'node_started',
      'node_finished',
      'message',
      'message_end',
      'user_inputs',
      'workflow_finished',
      'run_failed',
      'run_canceled',
      'tool_call',
    ];
    expect([...seen].sort()).toEqual(expect.arrayContaining(engineEvents.sort()));
  });
});
