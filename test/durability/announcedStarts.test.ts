/**
 * Acknowledged starts (issue 38, item 5): the API + worker process is SIGKILLed while streamed
 * turns are starting, Temporal out of its reach (a relay that stops forwarding). A streaming
 * client learns its run's task id from event 1; before the fix it got event 1 before the
 * workflow start was sent, so a kill in between left clients holding ids of runs the reconciler
 * then failed (3 of 32 and 6 of 62 in the issue). Now a client is told only once Temporal took
 * the start: every run whose id a client received ends finished (or still runs), never failed.
 */
import { describe, expect, inject, it } from 'vitest';
import { parseSse } from '../helpers/appHarness';
import { appProcessSuite } from '../helpers/appProcessSuite';
import { dsl } from '../helpers/canvasKit';
import { startRelay } from '../helpers/temporalRelay';

const BEFORE_FREEZE = 4;
const IN_FLIGHT = 16;

const app = appProcessSuite('announced');

/** Streams a completion and resolves with the first task id the stream carried (null: none before it ended). */
async function taskIdOf(res: Response): Promise<string | null> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return null;
      text += decoder.decode(value, { stream: true });
      const id = parseSse(text).find((m) => typeof m.json?.task_id === 'string')?.json?.task_id;
      if (typeof id === 'string') {
        void reader.cancel().catch(() => undefined);
        return id;
      }
    }
  } catch {
    return null; // the process died under the stream
  }
}

describe('streamed turns starting while the API dies', () => {
  it('never fails a run whose task id a client received', async () => {
    const temporalAddress = inject('temporalAddress');
    const relay = await startRelay(temporalAddress);
    const extra = { RUN_RECONCILE_GRACE_S: '5', RUN_RECONCILE_INTERVAL_S: '1' };
    const env = app.env({ temporalAddress: relay.address, extra });
    const { base, auth } = app;
    const post = (url: string, body: unknown, signal?: AbortSignal) =>
      fetch(`${base}${url}`, { method: 'POST', headers: auth, body: JSON.stringify(body), ...(signal ? { signal } : {}) });

    const child = await app.start(env, 300_000);
    const canvas = dsl({
      begin: { name: 'Begin', downstream: ['Message:m'] },
      'Message:m': { name: 'Message', params: { content: ['got {sys.query}'] } },
    });
    const agentId = ((await (await post('/api/v1/agents', { title: 'announced starts', dsl: canvas })).json()) as { data: { id: string } }).data.id;
    const turn = (i: number) =>
      post('/api/v1/agents/chat/completions', { agent_id: agentId, query: `announced-q${i}-`, stream: true }, AbortSignal.timeout(120_000))
        .then(taskIdOf)
        .catch(() => null);

    // Starts Temporal takes: their clients get their ids.
    const early = await Promise.all(Array.from({ length: BEFORE_FREEZE }, (_, i) => turn(i)));
    expect(early.filter((id) => id !== null)).toHaveLength(BEFORE_FREEZE);

    // Starts in flight when the process dies: Temporal never gets them.
    relay.freeze();
    const late = Array.from({ length: IN_FLIGHT }, (_, i) => turn(BEFORE_FREEZE + i));
    for (let waited = 0; relay.seen(/announced-q\d+-/g) < IN_FLIGHT / 2; waited += 200) {
      if (waited > 120_000) throw new Error(`only ${relay.seen(/announced-q\d+-/g)} workflow starts reached the relay`);
      await new Promise((r) => setTimeout(r, 200));
    }
    await new Promise((r) => setTimeout(r, 1000)); // whatever a stream would show, it has shown
    await child.kill();
    const told = [...early, ...(await Promise.all(late))].filter((id): id is string => id !== null);
    relay.close();
    process.stdout.write(
      `[announced starts] ${told.length} task ids received (${BEFORE_FREEZE} before the freeze), ${relay.seen(/announced-q\d+-/g)} starts held\n`,
    );

    await app.start({ ...env, TEMPORAL_ADDRESS: temporalAddress }, 300_000);
    const statuses: Record<string, string> = {};
    for (const runId of told) {
      const res = await fetch(`${base}/api/v1/runs/${runId}/events`, { headers: auth, signal: AbortSignal.timeout(90_000) });
      expect(await res.text(), `events of run ${runId}`).toContain('[DONE]');
      statuses[runId] = ((await (await fetch(`${base}/api/v1/runs/${runId}`, { headers: auth })).json()) as { status: string }).status;
    }
    expect(
      Object.values(statuses).filter((s) => s === 'failed'),
      JSON.stringify(statuses),
    ).toEqual([]);
    for (const runId of early) expect(statuses[runId!]).toBe('finished');
  }, 900_000);
});
