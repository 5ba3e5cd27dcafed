/**
 * The toolInvoke activity on its own, in Temporal's MockActivityEnvironment: how failures map to
 * ApplicationFailure (our error code as its type, bad requests not retried), heartbeats while the
 * tool works, and cancellation while it waits on its peer. A real store (PGlite) and a local
 * SearXNG stand-in over HTTP.
 */
import { CancelledFailure } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { knowledgeDeps } from '../../src/io/knowledge/deps';
import { silentLogger } from '../../src/io/log';
import { createToolActivities } from '../../activities/tools';
import { openStore } from '../../src/io/store/store';
import type { Store } from '../../src/io/store/contract';
import { dsl } from '../helpers/canvasKit';
import type { StandIn } from '../helpers/httpStandIn';
import { startSearxngServer } from '../helpers/searxngServer';
import { rejection } from '../helpers/rejection';

let store: Store;
let searx: StandIn;
let refusingSearx: StandIn;
let runId: string;
const tenantId = 'tenant-tool-activity';

beforeAll(async () => {
  [store, searx, refusingSearx] = await Promise.all([openStore({}), startSearxngServer(), startSearxngServer({ jsonEnabled: false })]);
  await store.tenants.ensure(tenantId, 'tool activity tests');
  const canvas = await store.canvases.create({
    tenantId,
    title: 'tools',
    dsl: dsl({
      begin: { name: 'Begin', downstream: ['SearXNG:ok'] },
      'SearXNG:ok': { name: 'SearXNG', params: { searxng_url: searx.url, top_n: 2 }, downstream: ['SearXNG:refusing'] },
      'SearXNG:refusing': { name: 'SearXNG', params: { searxng_url: refusingSearx.url } },
    }),
  });
  runId = `run-${Date.now()}`;
  await store.runs.create({ id: runId, tenantId, canvasId: canvas.id, sessionId: null, workflowId: `wf-${runId}`, canvasVersionId: canvas.version_id });
});

afterAll(async () => {
  await Promise.all([searx?.stop(), refusingSearx?.stop()]);
  await store?.close();
});

function activities() {
  const env = { NETWORK_ALLOW_HOSTS: '127.0.0.1' };
  return createToolActivities({ store, log: silentLogger, env, knowledge: knowledgeDeps(store, env) });
}

const paramsOf = (id: string) => ['components', id, 'obj', 'params'];

describe('the toolInvoke activity', () => {
  it('returns the tool result and heartbeats while the tool works', async () => {
    const env = new MockActivityEnvironment({ attempt: 1 });
    let beats = 0;
    env.on('heartbeat', () => beats++);
    const { toolInvoke } = activities();
    const result: Awaited<ReturnType<typeof toolInvoke>> = await env.run(
      toolInvoke,
      { runId, componentName: 'SearXNG', paramsPath: paramsOf('SearXNG:ok'), args: { query: 'durable' } },
      { maxRetries: 0 },
    );
    expect(result.text).toContain('durable result 1');
    expect(beats).toBeGreaterThan(0);
  });

  it('fails a refused request with its error code, not retried', async () => {
    const env = new MockActivityEnvironment({ attempt: 1 });
    const err = await rejection(
      env.run(activities().toolInvoke, { runId, componentName: 'SearXNG', paramsPath: paramsOf('SearXNG:refusing'), args: { query: 'x' } }, { maxRetries: 3 }),
    );
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect(err).toMatchObject({ type: 'TOOL_BAD_REQUEST', nonRetryable: true });
  });

  it('fails a tool this build cannot run as COMPONENT_UNSUPPORTED, not retried', async () => {
    const env = new MockActivityEnvironment({ attempt: 1 });
    const err = await rejection(env.run(activities().toolInvoke, { runId, componentName: 'NoSuchTool', paramsPath: [], args: {} }, { maxRetries: 3 }));
    expect(err).toMatchObject({ type: 'COMPONENT_UNSUPPORTED', nonRetryable: true });
  });

  it('lets an outage be retried until the attempts are spent', async () => {
    const call = (attempt: number) =>
      rejection(
        new MockActivityEnvironment({ attempt }).run(
          activities().toolInvoke,
          { runId, componentName: 'SearXNG', paramsPath: paramsOf('SearXNG:ok'), args: { query: 'outage' } },
          { maxRetries: 1 },
        ),
      );
    searx.failFor('outage', [503, 503]);
    expect(await call(1)).toMatchObject({ type: 'TOOL_UNAVAILABLE', nonRetryable: false });
    expect(await call(2)).toMatchObject({ type: 'TOOL_UNAVAILABLE', nonRetryable: true });
  });

  it('rethrows the cancellation when cancelled while the peer has not answered', async () => {
    // Answered late, so a cancel that did not reach the tool would show as a result.
    searx.delayFor('slow', 3000);
    const env = new MockActivityEnvironment({ attempt: 1 });
    const pending = rejection(
      env.run(activities().toolInvoke, { runId, componentName: 'SearXNG', paramsPath: paramsOf('SearXNG:ok'), args: { query: 'slow' } }, { maxRetries: 0 }),
    );
    await waitUntil(() => searx.requestsFor('slow').length > 0);
    env.cancel();
    expect(await pending).toBeInstanceOf(CancelledFailure);
  });
});

async function waitUntil(ready: () => boolean): Promise<void> {
  while (!ready()) await new Promise((resolve) => setTimeout(resolve, 20));
}
