/**
 * A Message with `memory_ids` saves its turn to those memories (RAGFlow's `_save_to_memory`):
 * after its text is shown, one `memorySave` call with the user's query and the shown answer,
 * keyed by run, node and path position so that the save happens once per turn whatever the
 * retries. Runs started before the feature (no `memorySave` in their state) save nothing.
 */
import { paramText } from '../components/common';
import type { MemorySaveRequest } from '../components/callContracts';
import { makeContext } from './context';
import type { MessageCursor } from './state';
import { applyOutcome, hasOpenCalls, type Step } from './step';

/** The memories a Message's params name (RAGFlow's `memory_ids`). */
export function memoryIdsOf(params: unknown): string[] {
  const ids = (params as { memory_ids?: unknown } | null)?.memory_ids;
  return Array.isArray(ids) ? [...new Set(ids.filter((x): x is string => typeof x === 'string' && x.trim() !== ''))] : [];
}

/** Asks for the save once; true while it (or the extraction after it) is out. */
export function saveToMemory(step: Step, id: string, position: number, cursor: MessageCursor): boolean {
  const { state } = step;
  if (!state.memorySave) return false;
  const params = step.canvas.nodes[id]!.params as { user_id?: unknown };
  const memoryIds = memoryIdsOf(params);
  if (memoryIds.length === 0) return false;
  if (!cursor.memorySave) {
    cursor.memorySave = 'asked';
    const ctx = makeContext(step.canvas, state, id, position);
    const userId = typeof params.user_id === 'string' && params.user_id ? paramText(ctx, params.user_id) : '';
    const request: MemorySaveRequest = {
      runId: state.runId,
      key: `${state.runId}:${id}:${position}`,
      memoryIds,
      userId,
      userInput: String(state.globals['sys.query'] ?? ''),
      agentResponse: cursor.content,
    };
    applyOutcome(step, id, {
      kind: 'calls',
      calls: [{ call: { activity: 'memorySave', request }, summary: `save the turn to ${memoryIds.length} memories` }],
      memo: { memory: 'save', request },
    });
  }
  return hasOpenCalls(state, id);
}
