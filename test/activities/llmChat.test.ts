/**
 * The llmChat activity on its own, in Temporal's MockActivityEnvironment, against a scripted
 * OpenAI-compatible server over real HTTP: it heartbeats its progress while the answer streams,
 * maps the model's refusals onto ApplicationFailure (a bad request is not retried, an outage or a
 * rate limit is), and on cancellation hangs up on the model and rethrows the cancellation.
 */
import { CancelledFailure } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
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
});
