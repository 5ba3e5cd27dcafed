/**
 * Memory activities: a Message with `memory_ids` saves its turn (`memorySave`), then each memory
 * with semantic, episodic or procedural types has its LLM extract them (`memoryExtract`, retried
 * on its own, after the raw save). The save is keyed by run, node and visit: an attempt that
 * finds its key saved (the worker died after the save and before reporting) stores nothing more.
 */
import { Context } from '@temporalio/activity';
import type { MemoryExtractRequest, MemoryExtractResult, MemorySaveRequest, MemorySaveResult } from '../src/core/components/callContracts';
import { AppError } from '../src/errors';
import type { Logger } from '../src/io/log';
import type { LlmSettings } from '../src/io/llm/providers';
import type { ChunkIndex } from '../src/io/knowledge/chunkIndex';
import type { EmbeddingSettings } from '../src/io/knowledge/embedder';
import { extractInto, saveTurn } from '../src/io/knowledge/memoryService';
import type { Store } from '../src/io/store/contract';
import { toFailure, type LlmCallOptions } from './llm';
import { abortedFailure } from './cancellation';

export interface MemoryActivityDeps {
  store: Store;
  llm: LlmSettings;
  embedding: EmbeddingSettings;
  /** The knowledge search backend (OpenSearch indexes memory messages too). */
  index?: ChunkIndex;
  log: Logger;
}

/** Input of `extractMemory`, the extraction a message added through the API starts as a workflow. */
export interface ExtractMemoryInput {
  tenantId: string;
  memoryId: string;
  sourceId: number;
  turn: { userId: string; agentId: string; sessionId: string; userInput: string; agentResponse: string };
}

export function createMemoryActivities(deps: MemoryActivityDeps) {
  const failure = (err: unknown, what: string, maxRetries: number) => {
    const ctx = Context.current();
    if (ctx.cancellationSignal.aborted) return abortedFailure(ctx, err);
    const appErr = err instanceof AppError ? err : new AppError('INTERNAL', err instanceof Error ? err.message : String(err));
    deps.log.warn(`${what} failed`, { code: appErr.code, attempt: ctx.info.attempt, error: appErr.message });
    return toFailure(appErr, ctx.info.attempt > maxRetries);
  };
  async function runOf(runId: string) {
    const run = await deps.store.runs.getById(runId);
    if (!run) throw new AppError('NOT_FOUND', `Run ${runId} not found`);
    return run;
  }

  /** The turn a save or an extraction is about: its run's agent and session, the user's words and the answer. */
  async function turnOf(request: { runId: string; userId: string; userInput: string; agentResponse: string }) {
    const run = await runOf(request.runId);
    const turn = {
      userId: request.userId,
      agentId: run.canvas_id,
      sessionId: run.session_id ?? run.id,
      userInput: request.userInput,
      agentResponse: request.agentResponse,
    };
    return { run, turn };
  }

  return {
    async memorySave(request: MemorySaveRequest, options: LlmCallOptions): Promise<MemorySaveResult> {
      try {
        const { run, turn } = await turnOf(request);
        const results = await saveTurn(deps, run.tenant_id, request.memoryIds, turn, request.key, Context.current().cancellationSignal);
        return {
          saved: results.flatMap((r) => (r.messageId === null ? [] : [{ memoryId: r.memoryId, messageId: r.messageId, isNew: r.saved, extract: r.extract }])),
          errors: results.flatMap((r) => (r.error ? [r.error] : [])),
        };
      } catch (err) {
        throw failure(err, 'memory save', options.maxRetries);
      }
    },

    async memoryExtract(request: MemoryExtractRequest, options: LlmCallOptions): Promise<MemoryExtractResult> {
      try {
        const { run, turn } = await turnOf(request);
        return await extractInto(deps, run.tenant_id, request.memoryId, request.sourceId, turn, Context.current().cancellationSignal);
      } catch (err) {
        throw failure(err, 'memory extraction', options.maxRetries);
      }
    },

    /** The extraction of a message added through `POST /api/v1/messages` (workflow memoryExtraction). */
    async extractMemory(input: ExtractMemoryInput): Promise<MemoryExtractResult> {
      try {
        return await extractInto(deps, input.tenantId, input.memoryId, input.sourceId, input.turn, Context.current().cancellationSignal);
      } catch (err) {
        throw failure(err, 'memory extraction', 5);
      }
    },
  };
}
