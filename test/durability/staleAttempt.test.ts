/**
 * An attempt that is stalled rather than dead: Temporal already retried the model call (say its
 * worker froze past the heartbeat timeout), yet the first attempt wakes up and keeps streaming.
 * Both attempts run the real llmChat activity against the scripted model over HTTP and a real
 * store (PGlite, and PostgreSQL when its binaries are here); attempt 1 is never told it was
 * superseded. Once attempt 2 claims the stream slot, the store refuses attempt 1's writes, attempt 1
 * hangs up on the model, and every reader of the log (live from the start, or replaying) ends with
 * attempt 2's text exactly.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLlmActivities } from '../../activities/llm';
import { followRunEvents } from '../../api/services/eventStream';
import { collect, newCollector } from '../../api/services/replies';
import type { LlmChatRequest, LlmChatResult } from '../../src/core/components/callContracts';
import { silentLogger } from '../../src/io/log';
import { llmSettingsFromEnv } from '../../src/io/llm/providers';
import type { Store } from '../../src/io/store/contract';
import { openStore } from '../../src/io/store/store';
import { storeDb } from '../../src/io/store/storeDb';
import { newId } from '../../src/io/store/time';
import { startPostgres } from '../helpers/postgres';
import { rejection } from '../helpers/rejection';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scriptedLlm';

const postgres = await startPostgres();
if ('skipped' in postgres) console.warn(`[test/durability/staleAttempt] PostgreSQL backend skipped: ${postgres.skipped}`);

let llm: ScriptedLlm;
beforeAll(async () => {
  llm = await startScriptedLlm();
});
afterAll(async () => {
  await llm?.stop();
  if ('stop' in postgres) await postgres.stop();
});

const OLD = Array.from({ length: 150 }, (_, i) => `old${i}`).join(' ');
const NEW = Array.from({ length: 40 }, (_, i) => `new${i}`).join(' ');
const SEQ = 2;

/** Reads the run's log from the start to its terminal event, as the API's readers do. */
async function readToEnd(store: Store, runId: string): Promise<string> {
  const c = newCollector();
  for await (const e of followRunEvents(store, runId, { after: null, signal: new AbortController().signal })) collect(c, e, false);
  return c.content;
}

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const backends: Array<[string, () => Promise<Store>, string | undefined]> = [
  ['PGlite', () => openStore({}), undefined],
  [
    'PostgreSQL',
    () => ('url' in postgres ? openStore({ databaseUrl: postgres.url }) : Promise.reject(new Error('no PostgreSQL'))),
    'skipped' in postgres ? postgres.skipped : undefined,
  ],
];

describe.each(backends)('a stalled attempt that wakes up after its retry started (%s)', (_name, open, skipped) => {
  it.skipIf(skipped !== undefined)(
    'leaves the log holding the retry’s text exactly, and stops streaming',
    async () => {
      const store = await open();
      try {
        const runId = newId();
        const prompt = `Stale ${runId}`;
        let calls = 0;
        llm.whenPromptIncludes(prompt, () => (++calls === 1 ? { content: OLD, delayMs: 15 } : { content: NEW, delayMs: 2 }));
        const llmChat = createLlmActivities({
          store,
          settings: llmSettingsFromEnv({ LLM_BASE_URL: llm.url, LLM_API_KEY: 'test' }),
          log: silentLogger,
          heartbeatMs: 50,
        }).llmChat;
        const request: LlmChatRequest = {
          llmId: 'scripted@OpenAI',
          messages: [{ role: 'user', content: prompt }],
          gen: {},
          stream: { runId, messageId: 'msg-1', seq: SEQ, componentId: 'LLM:a', createdAt: 1_700_000_000 },
        };
        const tokens = async () =>
          (
            await storeDb(store).query<{ n: number }>(`SELECT count(*)::int AS n FROM run_events WHERE run_id = $1 AND seq = $2 AND event = 'message'`, [
              runId,
              SEQ,
            ])
          ).rows[0]!.n;
        const live = readToEnd(store, runId);

        const first = rejection(new MockActivityEnvironment({ attempt: 1 }).run(llmChat, request, { maxRetries: 3 }));
        await until(async () => (await tokens()) >= 10, 'attempt 1 streamed 10 tokens');
        const second = (await new MockActivityEnvironment({ attempt: 2 }).run(llmChat, request, { maxRetries: 3 })) as LlmChatResult;
        const firstOutcome = await first;
        await store.events.append(runId, [
          { seq: SEQ + 1, sub: 0, event: 'workflow_finished', data: { outputs: {} }, message_id: 'msg-1', created_at: 1_700_000_000, task_id: runId },
        ]);

        const stored = await storeDb(store).query<{ content: string; superseded: boolean; attempt: number | null }>(
          `SELECT data->>'content' AS content, superseded, attempt FROM run_events WHERE run_id = $1 AND seq = $2 AND event = 'message' ORDER BY sub`,
          [runId, SEQ],
        );
        const visible = stored.rows.filter((r) => !r.superseded);
        // Which attempt wrote a token shows in its text (the column says so too since migration 10).
        const ofFirst = stored.rows.filter((r) => r.content.startsWith('old'));
        const oldAfterRetry = ofFirst.filter((r) => !r.superseded).length;
        console.log(
          `[stale attempt, ${_name}] tokens stored ${stored.rows.length} (attempt 1: ${ofFirst.length}, attempt 2: ${stored.rows.length - ofFirst.length}); ` +
            `visible ${visible.map((r) => r.content).join('').length}/${NEW.length} chars of attempt 2's text; attempt 1 visible after the retry: ${oldAfterRetry}; ` +
            `attempt 1 ${firstOutcome ? `failed ${String((firstOutcome as { type?: string }).type)}` : 'completed'}`,
        );
        expect(second.content).toBe(NEW);
        expect(visible.map((r) => r.content).join('')).toBe(NEW);
        expect(await readToEnd(store, runId)).toBe(NEW);
        expect(await live).toBe(NEW);
        // Attempt 1 learnt at its next write that it was superseded, and hung up on the model.
        expect(firstOutcome).toMatchObject({ type: 'STREAM_SUPERSEDED' });
        const firstCall = llm.calls.find((c) => c.body.messages.some((m) => m.content === prompt))!;
        await until(async () => firstCall.endedAt !== null, 'attempt 1 hung up');
        expect(firstCall.aborted).toBe(true);
        expect(ofFirst.length).toBeLessThan(OLD.split(' ').length);
        expect(ofFirst.every((r) => r.attempt === 1)).toBe(true);
      } finally {
        await store.close();
      }
    },
    60_000,
  );

  it.skipIf(skipped !== undefined)(
    'tells a live reader to drop the first attempt’s tokens when a stalled retry hid them before the current one looked',
    async () => {
      const store = await open();
      try {
        const runId = newId();
        const prompt = `Raced retries ${runId}`;
        let calls = 0;
        llm.whenPromptIncludes(prompt, () => (++calls === 1 ? { content: OLD, delayMs: 15 } : { content: NEW, delayMs: 2 }));
        const llmChat = createLlmActivities({
          store,
          settings: llmSettingsFromEnv({ LLM_BASE_URL: llm.url, LLM_API_KEY: 'test' }),
          log: silentLogger,
          heartbeatMs: 50,
        }).llmChat;
        const request: LlmChatRequest = {
          llmId: 'scripted@OpenAI',
          messages: [{ role: 'user', content: prompt }],
          gen: {},
          stream: { runId, messageId: 'msg-1', seq: SEQ, componentId: 'LLM:a', createdAt: 1_700_000_000 },
        };
        const live = readToEnd(store, runId);
        const first = rejection(new MockActivityEnvironment({ attempt: 1 }).run(llmChat, request, { maxRetries: 3 }));
        await until(
          async () =>
            (await storeDb(store).query<{ n: number }>(`SELECT count(*)::int AS n FROM run_events WHERE run_id = $1 AND seq = $2`, [runId, SEQ])).rows[0]!.n >=
            10,
          'attempt 1 streamed 10 tokens',
        );
        // Attempt 2 (say, handed to the frozen worker) claimed the slot and hid attempt 1's
        // tokens, then stalled before its retry notice; attempt 3 is the one Temporal waits for.
        expect(await store.events.claimSlot(runId, SEQ, 2)).toBe(true);
        expect(await store.events.supersede(runId, SEQ, 2)).toBeGreaterThan(0);
        const third = (await new MockActivityEnvironment({ attempt: 3 }).run(llmChat, request, { maxRetries: 3 })) as LlmChatResult;
        expect(await first).toMatchObject({ type: 'STREAM_SUPERSEDED' });
        await store.events.append(runId, [
          { seq: SEQ + 1, sub: 0, event: 'workflow_finished', data: { outputs: {} }, message_id: 'msg-1', created_at: 1_700_000_000, task_id: runId },
        ]);
        expect(third.content).toBe(NEW);
        expect(await readToEnd(store, runId)).toBe(NEW);
        expect(await live).toBe(NEW);
      } finally {
        await store.close();
      }
    },
    60_000,
  );
});
