/**
 * The llmChat activity on its own, in Temporal's MockActivityEnvironment, against a scripted
 * OpenAI-compatible server over real HTTP: it heartbeats its progress while the answer streams,
 * maps the model's refusals onto ApplicationFailure (a bad request is not retried, an outage or a
 * rate limit is), and on cancellation hangs up on the model and rethrows the cancellation. It
 * never answers with a stream it did not see finished: a cut stream or a worker shutting down
 * fails the attempt (retryable), and an attempt whose stream slot a newer attempt claimed stops.
 */
import { CancelledFailure } from '@temporalio/activity';
import { ActivityCancellationDetails, ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLlmActivities } from '../../activities/llm';
import type { LlmChatRequest, LlmChatResult } from '../../src/core/components/callContracts';
import { silentLogger } from '../../src/io/log';
import { llmSettingsFromEnv } from '../../src/io/llm/providers';
import type { Store } from '../../src/io/store/contract';
import { openStore } from '../../src/io/store/store';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scriptedLlm';
import { rejection } from '../helpers/rejection';
import { newId } from '../../src/io/store/time';

let store: Store;
let llm: ScriptedLlm;

beforeAll(async () => {
  [store, llm] = await Promise.all([openStore({}), startScriptedLlm()]);
});

afterAll(async () => {
  await llm?.stop();
  await store?.close();
});

function llmChat() {
  const settings = llmSettingsFromEnv({ LLM_BASE_URL: llm.url, LLM_API_KEY: 'test' });
  return createLlmActivities({ store, settings, log: silentLogger, heartbeatMs: 20 }).llmChat;
}

const request: LlmChatRequest = { llmId: 'scripted@OpenAI', messages: [{ role: 'user', content: 'hello' }], gen: {} };

describe('the llmChat activity', () => {
  it('heartbeats the characters streamed so far while the answer streams', async () => {
    llm.reply({ content: 'one two three four five', chunkWords: 1, delayMs: 60 });
    const env = new MockActivityEnvironment({ attempt: 1 });
    const beats: unknown[] = [];
    env.on('heartbeat', (details: unknown) => beats.push(details));
    const result: LlmChatResult = await env.run(llmChat(), request, { maxRetries: 0 });
    expect(result.content).toBe('one two three four five');
    // When the first beat comes depends on the machine's load; what it reports must not: the
    // characters so far, never fewer than before, some while the answer is still streaming.
    const chars = beats.map((b) => (b as { chars: number }).chars);
    expect(chars.length).toBeGreaterThan(0);
    expect(chars).toEqual([...chars].sort((x, y) => x - y));
    expect(chars.some((n) => n > 0 && n < result.content.length)).toBe(true);
    expect(Math.max(...chars)).toBeLessThanOrEqual(result.content.length);
  });

  it('fails a request the model refuses (400) with LLM_BAD_REQUEST, not retried', async () => {
    llm.reply({ status: 400, message: 'unsupported parameter' });
    const err = await rejection(new MockActivityEnvironment({ attempt: 1 }).run(llmChat(), request, { maxRetries: 3 }));
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect(err).toMatchObject({ type: 'LLM_BAD_REQUEST', nonRetryable: true });
  });

  it.each([500, 429])('lets an outage (%i) be retried while attempts remain', async (status) => {
    llm.reply({ status });
    const err = await rejection(new MockActivityEnvironment({ attempt: 1 }).run(llmChat(), request, { maxRetries: 2 }));
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect(err).toMatchObject({ type: 'LLM_UNAVAILABLE', nonRetryable: false });
  });

  it('stops retrying an outage once max_retries is spent', async () => {
    llm.reply({ status: 503 });
    const err = await rejection(new MockActivityEnvironment({ attempt: 3 }).run(llmChat(), request, { maxRetries: 2 }));
    expect(err).toMatchObject({ type: 'LLM_UNAVAILABLE', nonRetryable: true });
  });

  it('hangs up on the model and rethrows the cancellation when cancelled mid-stream', async () => {
    const before = llm.calls.length;
    llm.reply({ hang: true, content: 'a partial answer' });
    const env = new MockActivityEnvironment({ attempt: 1 });
    const pending = rejection(env.run(llmChat(), request, { maxRetries: 0 }));
    await llm.waitForCalls(before + 1);
    env.cancel();
    expect(await pending).toBeInstanceOf(CancelledFailure);
    await llm.waitForAbort();
    expect(llm.calls[before]!.aborted).toBe(true);
  });

  it('fails a stream cut off before the model finished (no finish_reason) as retryable LLM_INCOMPLETE, not as an answer', async () => {
    llm.reply({ cut: true, content: 'half of an ans' });
    // Retried like a crash, even with max_retries spent (a canvas's default is 0).
    const err = await rejection(new MockActivityEnvironment({ attempt: 1 }).run(llmChat(), request, { maxRetries: 0 }));
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect(err).toMatchObject({ type: 'LLM_INCOMPLETE', nonRetryable: false });
  });

  it('fails as retryable WORKER_STOPPING, not with the partial answer, when its worker shuts down mid-stream', async () => {
    llm.reply({ hang: true, content: 'a partial answer' });
    const env = new MockActivityEnvironment({ attempt: 1 });
    // Shut down once tokens have arrived: the client then ends its iteration without an error.
    const streaming = new Promise<void>((resolve) => env.on('heartbeat', (d: { chars: number }) => d.chars > 0 && resolve()));
    const pending = rejection(env.run(llmChat(), request, { maxRetries: 0 }));
    await streaming;
    env.cancel('WORKER_SHUTDOWN', new ActivityCancellationDetails({ workerShutdown: true }));
    const err = await pending;
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect(err).toMatchObject({ type: 'WORKER_STOPPING', nonRetryable: false });
  });

  it('stops streaming and fails with STREAM_SUPERSEDED once a newer attempt claims its stream slot', async () => {
    const before = llm.calls.length;
    const runId = newId();
    const stream = { runId, messageId: 'm1', seq: 4, componentId: 'LLM:a', createdAt: 1_700_000_000 };
    llm.reply({ content: Array.from({ length: 400 }, (_, i) => `t${i}`).join(' '), delayMs: 5 });
    const pending = rejection(new MockActivityEnvironment({ attempt: 1 }).run(llmChat(), { ...request, stream }, { maxRetries: 3 }));
    await llm.waitForCalls(before + 1);
    await waitFor(async () => (await store.events.lastSub(runId, 4)) >= 3);
    expect(await store.events.claimSlot(runId, 4, 2)).toBe(true);
    const storedAtClaim = await store.events.lastSub(runId, 4);
    const err = await pending;
    expect(err).toMatchObject({ type: 'STREAM_SUPERSEDED' });
    // It hung up on the model long before the 400 tokens were through, and wrote nothing more.
    await waitFor(async () => llm.calls[before]!.endedAt !== null);
    expect(llm.calls[before]!.aborted).toBe(true);
    expect(await store.events.lastSub(runId, 4)).toBe(storedAtClaim);
  });
});

async function waitFor(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}
