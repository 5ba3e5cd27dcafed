/**
 * The model-call activity. It streams from any OpenAI-compatible endpoint, heartbeating so a
 * cancel or a dead worker is noticed within seconds; when the answer is shown in a Message its
 * tokens go straight to the run's event log (never through workflow history) and only the full
 * answer returns to the workflow.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { ChatCompletionChunk, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { LlmChatRequest, LlmChatResult, TokenUsage } from '../src/core/components/callContracts';
import { shownText } from '../src/core/engine/runEvents';
import { AppError, isAppError } from '../src/errors';
import { clientFor } from '../src/io/llm/client';
import { classifyLlmError } from '../src/io/llm/errors';
import { resolveModel, type LlmSettings } from '../src/io/llm/providers';
import { ThinkSplitter } from '../src/io/llm/thinkSplitter';
import type { Store } from '../src/io/store/contract';
import type { Logger } from '../src/io/log';
import { expandBlobs, expandFiles, toOpenAiMessages, ToolCallAssembler, type ToolCallDelta } from '../src/io/llm/messages';
import { TokenWriter } from '../src/io/llm/tokenWriter';
import { abortedFailure } from './cancellation';
import { streamMeter } from './streamMeter';
import { untilTemporalAnswers } from './temporalReachable';
import type { CallProbe } from './callTraceRecord';

export interface LlmActivityDeps {
  store: Store;
  settings: LlmSettings;
  log: Logger;
  /** How often the activity heartbeats while a call is open. */
  heartbeatMs?: number;
}

/** Options the workflow passes along with the request. */
export interface LlmCallOptions {
  /** Retries allowed for errors the provider reports (RAGFlow's max_retries). */
  maxRetries: number;
}

function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Turns an AppError into the failure Temporal sees: user and config errors do not retry. */
export function toFailure(err: AppError, exhausted: boolean): ApplicationFailure {
  const details = [err.details];
  if (!err.retryable || exhausted) return ApplicationFailure.create({ type: err.code, message: err.message, details, nonRetryable: true });
  // A provider's Retry-After (a 429 that came in spite of PROVIDER_LIMITS) sets when the retry comes.
  const retryAfterMs = err.details.retryAfterMs;
  return ApplicationFailure.create({
    type: err.code,
    message: err.message,
    details,
    nonRetryable: false,
    ...(typeof retryAfterMs === 'number' ? { nextRetryDelay: retryAfterMs } : {}),
  });
}

/**
 * The writer of a call's streamed tokens, or null when nothing streams. A retry first claims the
 * slot (from then on the store refuses the earlier attempt's writes, even if that attempt is only
 * stalled and wakes up later), then hides what earlier attempts streamed.
 */
async function prepareStream(store: Store, request: LlmChatRequest, attempt: number, onRefused: () => void): Promise<TokenWriter | null> {
  const target = request.stream;
  if (!target) return null;
  // A retry replaces what an earlier attempt streamed: hide those tokens from later readers and
  // mark the place, so that a reader who was sent them drops them (the API's reader sizes the
  // drop to what that reader got; the count stored here is what the attempt streamed).
  // A first attempt streams into a slot no one has written (the engine reserves a fresh one per
  // call), so it need not look: one statement less, queued behind the step's own events, before
  // the model is asked. Its first write claims the slot.
  if (attempt === 1) return new TokenWriter(store, target, 0, attempt, onRefused);
  if (!(await store.events.claimSlot(target.runId, target.seq, attempt)))
    throw new AppError('STREAM_SUPERSEDED', `attempt ${attempt} of the model call found a newer attempt streaming into its slot`, { attempt });
  const last = await store.events.lastSub(target.runId, target.seq);
  let discarded = 0;
  if (last > 0) {
    for (const e of await store.events.slotUpTo(target.runId, { seq: target.seq, sub: last }))
      discarded = e.event === 'message_retry' ? 0 : discarded + shownText(e).length;
    await store.events.supersede(target.runId, target.seq, attempt);
  }
  const writer = new TokenWriter(store, target, last, attempt, onRefused);
  // Whenever an earlier attempt wrote into the slot: its tokens may have been hidden by another
  // retry that claimed before this one (and then stalled), and a live reader that got them must
  // still be told to drop them (the API's reader withholds the notice from one that got none).
  if (last > 0) writer.retryNotice(attempt, discarded);
  return writer;
}

export function createLlmActivities(deps: LlmActivityDeps) {
  const heartbeatMs = deps.heartbeatMs ?? 1000;

  return {
    /** Calls a chat model; streams tokens into the run's events when asked to. */
    async llmChat(request: LlmChatRequest, options: LlmCallOptions, probe?: CallProbe): Promise<LlmChatResult> {
      const ctx = Context.current();
      const attempt = ctx.info.attempt;
      // Attempts beyond max_retries only follow crashes or timeouts; a reported error then stops.
      const exhausted = attempt > options.maxRetries;
      let target;
      try {
        target = resolveModel(request.llmId, deps.settings);
      } catch (err) {
        throw toFailure(err instanceof AppError ? err : new AppError('LLM_BAD_REQUEST', String(err)), true);
      }
      // Stops the model call when the worker cancels it, or when the store refuses this
      // attempt's tokens (a newer attempt owns the slot): it must not keep streaming and paying.
      const refused = new AbortController();
      const signal = AbortSignal.any([ctx.cancellationSignal, refused.signal]);
      let writer: TokenWriter | null;
      try {
        writer = await prepareStream(deps.store, request, attempt, () => refused.abort());
      } catch (err) {
        // A newer attempt holds the slot; anything else (the store down) is retried as before.
        throw isAppError(err, 'STREAM_SUPERSEDED') ? toFailure(err, false) : err;
      }
      const splitter = new ThinkSplitter();
      let usage: TokenUsage | null = null;
      let finishReason: string | null = null;
      let model = target.model;
      const toolCalls = new ToolCallAssembler();
      const messages = await expandFiles(deps.store.files, await expandBlobs(deps.store, request.messages));
      const started = Date.now();
      const meter = streamMeter(ctx);
      const beat = setInterval(() => ctx.heartbeat({ chars: splitter.answer.length }), heartbeatMs);
      try {
        // No heartbeat up front: the first one goes a beat in, so a call answered within a second
        // (most are, and every orchestration benchmark's) costs the server no heartbeat at all.
        const stream = await clientFor(target).chat.completions.create(
          {
            model: target.model,
            messages: toOpenAiMessages(messages),
            ...request.gen,
            ...(request.tools && request.tools.length > 0 ? { tools: request.tools as ChatCompletionTool[], tool_choice: 'auto' as const } : {}),
            stream: true,
            stream_options: { include_usage: true },
          },
          { signal },
        );
        for await (const chunk of stream as AsyncIterable<ChatCompletionChunk>) {
          model = chunk.model || model;
          if (chunk.usage)
            usage = { prompt_tokens: chunk.usage.prompt_tokens, completion_tokens: chunk.usage.completion_tokens, total_tokens: chunk.usage.total_tokens };
          const choice = chunk.choices?.[0];
          if (!choice) continue;
          if (choice.finish_reason) finishReason = choice.finish_reason;
          const delta = choice.delta as { content?: string | null; reasoning_content?: string | null; tool_calls?: ToolCallDelta[] };
          for (const tc of delta.tool_calls ?? []) toolCalls.add(tc);
          // Time to first token, for the call's trace (activities/callTraceRecord.ts).
          if (probe && probe.firstTokenAt === undefined && (delta.content || delta.reasoning_content || delta.tool_calls?.length))
            probe.firstTokenAt = Date.now();
          meter.chars += (delta.content?.length ?? 0) + (delta.reasoning_content?.length ?? 0);
          const pieces = [...splitter.reasoningDelta(delta.reasoning_content ?? ''), ...(delta.content ? splitter.contentDelta(delta.content) : [])];
          writer?.write(pieces);
        }
        // The client ends its iteration quietly when the signal aborts, and so does a stream the
        // provider (or a proxy) cut off: neither is an answer, only a stream the model said it
        // finished is.
        if (signal.aborted) throw signal.reason;
        if (finishReason === null)
          throw new AppError(
            'LLM_INCOMPLETE',
            `The ${target.factory} stream ended before the model finished (no finish_reason), after ${splitter.answer.length} characters`,
            {
              provider: target.factory,
              chars: splitter.answer.length,
            },
          );
        writer?.write(splitter.end());
        await writer?.close();
      } catch (err) {
        if (ctx.cancellationSignal.aborted) {
          // Writes still on their way are harmless: the retry claims the slot, then hides them.
          writer?.abandon();
          throw abortedFailure(ctx, err);
        }
        // The retry hides this attempt's tokens: they must all be stored before it looks.
        await writer?.close().catch(() => {});
        const appErr = writer?.refusal ?? classifyLlmError(err, target.factory);
        deps.log.warn('model call failed', { code: appErr.code, attempt, provider: target.factory, model: target.model, error: appErr.message });
        // A stream that was cut or refused is not an error the provider reported: retried like a
        // crash (within the workflow's attempts), whatever max_retries says.
        throw toFailure(appErr, exhausted && !isAppError(appErr, 'LLM_INCOMPLETE', 'STREAM_SUPERSEDED'));
      } finally {
        clearInterval(beat);
      }
      // A call that ran past its first heartbeat holds its result until Temporal answers, so that
      // a Temporal outage does not drop its completion and get the model paid again (see
      // temporalReachable.ts). Shorter calls skip the probe: most are, and it costs one RPC.
      if (Date.now() - started >= heartbeatMs) await untilTemporalAnswers(ctx);
      const content = splitter.answer;
      const prompt = request.messages.reduce((n, m) => n + estimateTokens(m.content), 0);
      const completion = estimateTokens(content + splitter.reasoning);
      return {
        content,
        reasoning: splitter.reasoning,
        usage: usage ?? { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, estimated: true },
        model,
        finishReason,
        toolCalls: toolCalls.list(),
      };
    },
  };
}
