/**
 * What a Message does with its memory calls' results (src/core/engine/memorySave.ts asks for the
 * save): after the raw save, one extraction per memory that has semantic, episodic or
 * procedural types (RAGFlow queues that as a task); a failure never fails the Message (RAGFlow's
 * Message ignores what the save returns) but is noted in its `memory` output.
 */
import type { CallOutcome, Outcome } from './definition';
import type { MemoryExtractRequest, MemoryExtractResult, MemorySaveRequest, MemorySaveResult } from './callContracts';

export interface MemoryMemo {
  memory: 'save' | 'extract';
  /** The save's request, for the extraction calls after it. */
  request?: MemorySaveRequest;
}

function isMemoryMemo(memo: unknown): memo is MemoryMemo {
  const m = (memo as { memory?: unknown } | null)?.memory;
  return m === 'save' || m === 'extract';
}

/** The outcome of a memory call's result, or null when `memo` is not a memory call's. */
export function memoryResult(given: unknown, memo: unknown): Outcome | null {
  if (!isMemoryMemo(memo)) return null;
  const results = (Array.isArray(given) ? given : []) as CallOutcome[];
  const failures = results.filter((r) => !r.ok).map((r) => (r.ok ? '' : r.error));
  if (memo.memory === 'extract') {
    const extracted = results.reduce((n, r) => n + (r.ok ? (r.value as MemoryExtractResult).extracted : 0), 0);
    return { kind: 'done', outputs: failures.length > 0 ? { memory: `extraction failed: ${failures.join('; ')}` } : { memory: `extracted ${extracted}` } };
  }
  const r = results[0];
  if (!r || !r.ok) return { kind: 'done', outputs: { memory: `save failed: ${failures.join('; ') || 'no result'}` } };
  const saved = r.value as MemorySaveResult;
  const request = memo.request;
  const toExtract = saved.saved.filter((s) => s.extract);
  if (!request || toExtract.length === 0)
    return { kind: 'done', outputs: { memory: saved.errors.length > 0 ? saved.errors.join(' ') : `saved to ${saved.saved.length}` } };
  return {
    kind: 'calls',
    calls: toExtract.map((s) => {
      const extract: MemoryExtractRequest = {
        runId: request.runId,
        memoryId: s.memoryId,
        sourceId: s.messageId,
        userId: request.userId,
        userInput: request.userInput,
        agentResponse: request.agentResponse,
      };
      return { call: { activity: 'memoryExtract', request: extract }, summary: `extract memory ${s.memoryId}` };
    }),
    memo: { memory: 'extract' },
  };
}
