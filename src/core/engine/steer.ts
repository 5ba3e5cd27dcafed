/**
 * Steering a running Agent (message_policy `steer`, docs/ARCHITECTURE.md "Messages while a session
 * runs"): a message sent while the run works reaches each Agent in a model round as a user
 * message before its next model request. The workflow takes the message (an update, validated with
 * {@link steerableAgents} so one nobody can take is refused before it enters history) and hands it
 * to the loop, which files it with {@link steerRun} before the round's results go back to the
 * engine; the Agent's strategy reads it from its memo (agent/functionCalling.ts, agent/react.ts).
 * Pure: no clock, no I/O.
 */
import type { AgentMemo } from '../components/agent/memo';
import type { CompiledCanvas } from './compile';
import { newStep, type Step } from './step';
import type { RunState } from './state';
import { copyJson } from '../dsl/jsonCopy';
import type { RunEvent } from './runEvents';

/** A message for the running Agents: its id (the request's, so a retry is recognized) and text. */
export interface SteerMessage {
  id: string;
  text: string;
}

/** Phases after which the Agent makes another model request (the final answer and its JSON reformatting are the last). */
const STEERABLE_PHASES: ReadonlySet<AgentMemo['phase']> = new Set(['list', 'model', 'tools', 'analyze', 'plan', 'reflect']);

function isSteerableMemo(memo: unknown): memo is AgentMemo {
  if (typeof memo !== 'object' || memo === null) return false;
  const m = memo as Partial<AgentMemo>;
  return (m.strategy === 'function_calling' || m.strategy === 'react') && m.phase !== undefined && STEERABLE_PHASES.has(m.phase);
}

/**
 * The Agents that can take a message now: those waiting for a call of a round that another model
 * request follows (ordered by id). Empty when the run is paused, ending, or in no Agent round.
 */
export function steerableAgents(state: RunState): string[] {
  if (state.status !== 'running') return [];
  const ids = new Set<string>();
  for (const group of Object.values(state.calls.groups)) if (isSteerableMemo(group.memo)) ids.add(group.componentId);
  return [...ids].sort();
}

/** Why a message cannot be steered into the run now, or null when an Agent takes it. */
export function steerRefusal(state: RunState): string | null {
  if (state.status === 'paused') return 'the run waits at a form (answer it, or send the message with message_policy "enqueue")';
  if (state.status !== 'running') return `the run has ${state.status}`;
  if (steerableAgents(state).length > 0) return null;
  const running = Object.entries(state.nodes)
    .filter(([, n]) => n.status === 'running' || n.status === 'streaming')
    .map(([id]) => id);
  const where = running.length > 0 ? `it runs ${running.join(', ')}` : 'it is between components';
  return `no Agent of the run is in a model round that can take a message (${where}); send it with message_policy "enqueue" or "interrupt"`;
}

/** Files one message with every Agent that can take it and emits `message_steered`. */
function fileMessage(step: Step, message: SteerMessage): void {
  const taken: string[] = [];
  for (const group of Object.values(step.state.calls.groups)) {
    if (!isSteerableMemo(group.memo)) continue;
    group.memo = { ...group.memo, steered: [...(group.memo.steered ?? []), message.text] };
    if (!taken.includes(group.componentId)) taken.push(group.componentId);
  }
  step.sink.emit('message_steered', { steer_id: message.id, content: message.text, component_ids: taken.sort() });
}

/**
 * The state with `messages` filed for the running Agents, and one `message_steered` event each
 * (`component_ids` empty when no Agent could take it any more: it is then dropped, and said so).
 */
export function steerRun(canvas: CompiledCanvas, prev: RunState, messages: SteerMessage[], now: number): { state: RunState; events: RunEvent[] } {
  const state = copyJson(prev);
  const step = newStep(canvas, state, now);
  for (const m of messages) fileMessage(step, m);
  return { state, events: step.sink.events };
}
