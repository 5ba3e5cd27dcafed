/**
 * The Browser node in real runs on the Temporal dev server, driving Debian's headless Chromium
 * against a local site the test serves: two pages visited (a link followed) and their content
 * returned; a navigation to 127.0.0.1 refused by the network guard when NETWORK_ALLOW_HOSTS does
 * not allow it (the site never sees a request); a missing Chromium failing with TOOL_UNAVAILABLE.
 */
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchRun, type LaunchDeps } from '../../api/services/runLauncher';
import { openStore } from '../../src/io/store/store';
import type { Store } from '../../src/io/store/contract';
import { DEFAULT_RUN_SETTINGS, type CanvasRunResult } from '../../workflows/definitions';
import { dsl } from '../helpers/canvasKit';
import { startScriptedLlm, type RecordedCall, type ScriptedLlm } from '../helpers/scriptedLlm';
import { connectTemporal, startWorker, type RunningWorker, type TemporalHandles } from '../helpers/temporal';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) console.warn(`[browser tests] skipped: no Chromium at ${CHROMIUM} (apt-get install chromium)`);

let store: Store;
let llm: ScriptedLlm;
let temporal: TemporalHandles;
let allowed: RunningWorker;
let guarded: RunningWorker;
let missing: RunningWorker;
let site: Server;
let siteUrl = '';
const hits: string[] = [];
const tenantId = 'tenant-browser';

beforeAll(async () => {
  site = createServer((req, res) => {
    hits.push(req.url ?? '');
    res.setHeader('content-type', 'text/html; charset=utf-8');
    if (req.url === '/')
      res.end('<html><head><title>Harbor home</title></head><body><h1>Welcome to the harbor</h1><a href="/tides">Tide table</a></body></html>');
    else if (req.url === '/tides') res.end('<html><head><title>Tides</title></head><body><p>High tide today is at 14:32.</p></body></html>');
    else if (req.url === '/style.css') res.end('body{}');
    else {
      res.statusCode = 404;
      res.end('not found');
    }
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  [store, llm, temporal] = await Promise.all([openStore({}), startScriptedLlm(), connectTemporal()]);
  await store.tenants.ensure(tenantId, 'browser tests');
  const start = (env: Record<string, string>) => startWorker({ nativeConnection: temporal.nativeConnection, store, llmBaseUrl: llm.url, env });
  [allowed, guarded, missing] = await Promise.all([
    start({ NETWORK_ALLOW_HOSTS: '127.0.0.1', CHROMIUM_PATH: CHROMIUM }),
    start({ CHROMIUM_PATH: CHROMIUM }),
    start({ CHROMIUM_PATH: '/nonexistent/chromium', NETWORK_ALLOW_HOSTS: '127.0.0.1' }),
  ]);
}, 120_000);

afterAll(async () => {
  await Promise.all([allowed?.stop(), guarded?.stop(), missing?.stop()]);
  await Promise.all([temporal?.close(), llm?.stop(), store?.close()]);
  site?.closeAllConnections();
  await new Promise<void>((resolve) => (site ? site.close(() => resolve()) : resolve()));
});

function browserCanvas(marker: string) {
  return dsl({
    begin: { name: 'Begin', downstream: ['Browser:Web'] },
    'Browser:Web': { name: 'Browser', params: { llm_id: 'scripted', sys_prompt: marker, prompts: '{sys.query}', max_steps: 5 }, downstream: ['Message:Out'] },
    'Message:Out': { name: 'Message', params: { content: ['{Browser:Web@content}'] } },
  });
}

async function run(worker: RunningWorker, marker: string, query: string) {
  const deps: LaunchDeps = { store, client: temporal.client, taskQueue: worker.taskQueue, settings: { ...DEFAULT_RUN_SETTINGS, heartbeatTimeoutMs: 5000 } };
  const saved = await store.canvases.create({ tenantId, title: `browser ${marker} ${Date.now()}`, dsl: browserCanvas(marker) });
  const launched = await launchRun(deps, { tenantId, canvas: saved, sessionId: null, query, inputs: null, files: [], userId: 'u1', session: null });
  const handle = temporal.client.workflow.getHandle(launched.workflowId);
  const result = (await handle.result()) as CanvasRunResult;
  const events = await store.events.list(launched.runId, null, 10_000);
  return { result, events };
}

const lastText = (call: RecordedCall) => String(call.body.messages.at(-1)?.content ?? '');

describe.skipIf(!haveChromium)('the Browser node', () => {
  it('visits a local site across two pages and returns its content', async () => {
    const seen: RecordedCall[] = [];
    llm.whenPromptIncludes('MARK-browse-two', (call) => {
      seen.push(call);
      const state = lastText(call);
      if (state.includes('No page is open yet.')) return { content: JSON.stringify({ action: 'goto', url: `${siteUrl}/` }) };
      if (state.includes('Welcome to the harbor')) {
        const link = /\[(\d+)\] link: Tide table/.exec(state);
        return { content: JSON.stringify({ action: 'click', index: Number(link?.[1] ?? -1) }) };
      }
      const tide = /High tide today is at [0-9:]+/.exec(state);
      return { content: JSON.stringify({ action: 'done', content: tide ? `${tide[0]} (from ${/Current page: (\S+)/.exec(state)?.[1]})` : 'not found' }) };
    });
    const { result, events } = await run(allowed, 'MARK-browse-two', 'When is high tide?');
    expect(result.status).toBe('finished');
    expect(seen).toHaveLength(3);
    expect(result.content).toBe(`High tide today is at 14:32 (from ${siteUrl}/tides)`);
    expect(hits).toEqual(expect.arrayContaining(['/', '/tides']));
    const finished = events.find((e) => e.event === 'node_finished' && (e.data as { component_id?: string }).component_id === 'Browser:Web');
    expect((finished!.data as { outputs: Record<string, unknown> }).outputs).toMatchObject({ content: result.content, downloaded_files: [] });
  }, 120_000);

  it('refuses a navigation to 127.0.0.1 without the allow-list; the model is told why and the site gets no request', async () => {
    const before = hits.length;
    const seen: RecordedCall[] = [];
    llm.whenPromptIncludes('MARK-browse-guard', (call) => {
      seen.push(call);
      const state = lastText(call);
      if (state.includes('No page is open yet.')) return { content: JSON.stringify({ action: 'goto', url: `${siteUrl}/` }) };
      return { content: JSON.stringify({ action: 'done', content: /The last action failed: ([^\n]+)/.exec(state)?.[1] ?? 'no error' }) };
    });
    const { result } = await run(guarded, 'MARK-browse-guard', 'Open the harbor site');
    if (result.status !== 'finished') console.log('BROWSER GUARD RUN', result.error);
    expect(result.status).toBe('finished');
    expect(result.content).toContain('127.0.0.1 is a loopback address; blocked (allow it with NETWORK_ALLOW_HOSTS)');
    expect(lastText(seen[1]!)).not.toContain('Welcome to the harbor');
    expect(hits.length).toBe(before);
  }, 120_000);

  it('fails with TOOL_UNAVAILABLE when Chromium is not installed', async () => {
    llm.whenPromptIncludes('MARK-browse-missing', () => ({ content: JSON.stringify({ action: 'goto', url: `${siteUrl}/` }) }));
    const { result } = await run(missing, 'MARK-browse-missing', 'Open the harbor site');
    expect(result.status).toBe('failed');
    expect(result.error).toContain('Chromium is not installed at /nonexistent/chromium');
  }, 120_000);
});
