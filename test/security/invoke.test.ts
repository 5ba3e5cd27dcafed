/**
 * Invoke (RAGFlow's HTTP request component) against real local HTTP servers: every blocked target
 * fails with a clear, non-retryable error and the target's request log stays empty; an allowed
 * host gets the right method, query, body and headers; redirects are re-checked; `clean_html`
 * works; and the node runs end to end in a workflow on the Temporal dev server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Resolver } from '../../src/io/net';
import { createInvokeExecutor } from '../../src/io/tools/invoke';
import { launchRun, type LaunchDeps } from '../../api/services/runLauncher';
import { AppError } from '../../src/errors';
import { openStore } from '../../src/io/store/store';
import type { Store } from '../../src/io/store/contract';
import { DEFAULT_RUN_SETTINGS, type CanvasRunResult } from '../../workflows/definitions';
import { dsl } from '../helpers/canvasKit';
import { connectTemporal, startWorker, type RunningWorker, type TemporalHandles } from '../helpers/temporal';
import { startRecordingServer, type RecordingServer } from './recordingServer';
import { nodeFinished } from '../helpers/runEvents';

let allowed: RecordingServer;
let forbidden: RecordingServer;
let proxy: RecordingServer;
let forbidden6: RecordingServer | null = null;

beforeAll(async () => {
  [allowed, forbidden, proxy] = await Promise.all([startRecordingServer(), startRecordingServer(), startRecordingServer()]);
  forbidden6 = await startRecordingServer('::1').catch(() => null); // no IPv6 loopback here: the check still runs
});

afterAll(async () => {
  await Promise.all([allowed?.stop(), forbidden?.stop(), proxy?.stop(), forbidden6?.stop()]);
});

// No internet and no DNS games: names resolve through this table.
const resolver: Resolver = async (host) => {
  const table: Record<string, string> = { 'evil.example': '127.0.0.1', 'rebind.example': '127.0.0.1' };
  if (!table[host]) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return [{ address: table[host]!, family: 4 }];
};
const execute = createInvokeExecutor({ resolver });
const allowList = () => `127.0.0.1:${allowed.port},127.0.0.1:${proxy.port}`;

function invoke(params: Record<string, unknown>, args: Record<string, unknown> = {}) {
  return execute({
    params,
    args: { url: params.url, ...args },
    env: { NETWORK_ALLOW_HOSTS: allowList() },
    signal: new AbortController().signal,
    tenantId: 't',
  });
}

function nothingReachedForbidden() {
  expect(forbidden.requests).toEqual([]);
  expect(forbidden6?.requests ?? []).toEqual([]);
}

async function expectBlocked(params: Record<string, unknown>, message: string | RegExp) {
  const err = await invoke(params).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  expect((err as AppError).code).toBe('TOOL_BAD_REQUEST');
  expect((err as AppError).retryable).toBe(false);
  expect((err as AppError).message).toMatch(message);
  nothingReachedForbidden();
}

describe('Invoke refuses internal targets, and nothing reaches them', () => {
  it('loopback IPv4', async () => {
    await expectBlocked({ url: `${forbidden.origin}/secret` }, 'Invoke: 127.0.0.1 is a loopback address; blocked (allow it with NETWORK_ALLOW_HOSTS)');
  });

  it('loopback IPv6', async () => {
    const port = forbidden6?.port ?? forbidden.port;
    await expectBlocked({ url: `http://[::1]:${port}/secret` }, 'Invoke: ::1 is a loopback address; blocked');
  });

  it('IPv4-mapped IPv6 loopback', async () => {
    await expectBlocked(
      { url: `http://[::ffff:127.0.0.1]:${forbidden.port}/secret` },
      /::ffff:7f00:1 is an IPv4-mapped form of 127\.0\.0\.1, a loopback address; blocked/,
    );
  });

  it('the cloud metadata address', async () => {
    await expectBlocked({ url: 'http://169.254.169.254/latest/meta-data/' }, 'Invoke: 169.254.169.254 is the cloud metadata address; blocked');
  });

  it('a private network address', async () => {
    await expectBlocked({ url: 'http://10.0.0.1/' }, 'Invoke: 10.0.0.1 is a private address; blocked');
  });

  it('decimal, octal and hex IPv4 literals', async () => {
    for (const host of ['2130706433', '0177.0.0.1', '0x7f.1']) {
      await expectBlocked({ url: `http://${host}:${forbidden.port}/secret` }, 'Invoke: 127.0.0.1 is a loopback address; blocked');
    }
  });

  it('a non-HTTP scheme', async () => {
    await expectBlocked({ url: 'file:///etc/passwd' }, 'Invoke: file:///etc/passwd uses the file: scheme; only http and https are allowed');
  });

  it('a public-looking name that resolves to a private address', async () => {
    await expectBlocked({ url: `http://evil.example:${forbidden.port}/secret` }, 'Invoke: host evil.example is not allowed; blocked');
  });

  it('a redirect from an allowed host to a private one', async () => {
    const before = allowed.requests.length;
    const to = `${forbidden.origin}/secret`;
    await expectBlocked(
      { url: `${allowed.origin}/redirect?to=${encodeURIComponent(to)}` },
      `Invoke: redirect to ${to} refused: 127.0.0.1 is a loopback address; blocked`,
    );
    expect(allowed.requests.slice(before).map((r) => r.url)).toEqual([`/redirect?to=${encodeURIComponent(to)}`]);
    // Also when the next hop is a name that resolves inward, and after a 307.
    await expectBlocked(
      { url: `${allowed.origin}/redirect?status=307&to=${encodeURIComponent(`http://rebind.example:${forbidden.port}/`)}` },
      /redirect to http:\/\/rebind\.example:\d+\/ refused: host rebind\.example is not allowed; blocked/,
    );
  });

  it('a proxy on an internal address', async () => {
    await expectBlocked({ url: `${allowed.origin}/x`, proxy: forbidden.origin }, 'Invoke proxy: 127.0.0.1 is a loopback address; blocked');
  });

  it('endless redirects', async () => {
    await expectBlocked({ url: `${allowed.origin}/loop` }, 'Invoke: more than 5 redirects (the last one to /loop)');
  });
});

describe('Invoke on an allowed host', () => {
  const last = () => allowed.requests[allowed.requests.length - 1]!;

  it('GET: variables as the query string, headers with placeholders filled', async () => {
    const r = await invoke(
      {
        url: `${allowed.origin}/echo?fixed=1`,
        method: 'GET',
        headers: '{"X-Api-Key": "k-123", "X-Query": "q={sys.query}", "X-Other": "{not_a_ref}"}',
        variables: [{ key: 'q' }, { key: 'n' }],
      },
      { variables: { q: 'durable runs', n: 5, list: ['a', 'b'], skip: null }, header_vars: { 'sys.query': 'hello' } },
    );
    expect(last()).toMatchObject({ method: 'GET', url: '/echo?fixed=1&q=durable+runs&n=5&list=a&list=b', body: '' });
    expect(last().headers).toMatchObject({ 'x-api-key': 'k-123', 'x-query': 'q=hello', 'x-other': '{not_a_ref}', host: `127.0.0.1:${allowed.port}` });
    expect(JSON.parse(r.text)).toMatchObject({ method: 'GET' });
    expect(r.outputs).toEqual({ result: r.text });
  });

  it('POST json: JSON-looking strings are sent as JSON (RAGFlow)', async () => {
    await invoke({ url: `${allowed.origin}/items`, method: 'post' }, { variables: { obj: '{"a": 1}', n: '7', s: 'plain' } });
    expect(last()).toMatchObject({ method: 'POST', url: '/items' });
    expect(last().headers['content-type']).toBe('application/json');
    expect(JSON.parse(last().body)).toEqual({ obj: { a: 1 }, n: 7, s: 'plain' });
  });

  it('PUT formdata: a urlencoded form, lists repeated', async () => {
    await invoke({ url: `${allowed.origin}/form`, method: 'put', datatype: 'formdata' }, { variables: { a: 'x y', list: [1, 2], n: '7' } });
    expect(last()).toMatchObject({ method: 'PUT', url: '/form', body: 'a=x+y&list=1&list=2&n=7' });
    expect(last().headers['content-type']).toBe('application/x-www-form-urlencoded');
  });

  it('clean_html turns a page into text', async () => {
    const raw = await invoke({ url: `${allowed.origin}/html` });
    expect(raw.text).toContain('<h1>Hello</h1>');
    const clean = await invoke({ url: `${allowed.origin}/html`, clean_html: true });
    expect(clean.text).toMatch(/HELLO\s+Plain text and a link\./);
    expect(clean.text).not.toMatch(/<|var x|example\.com|a\.png/);
  });

  it('follows redirects on allowed hosts; a 303 after a POST continues as a GET without the body', async () => {
    const before = allowed.requests.length;
    const r = await invoke({ url: `${allowed.origin}/redirect?status=303&to=%2Fafter`, method: 'post' }, { variables: { a: 1 } });
    expect(JSON.parse(r.text)).toMatchObject({ method: 'GET', url: '/after', body: '' });
    expect(allowed.requests.slice(before).map((q) => `${q.method} ${q.url}`)).toEqual(['POST /redirect?status=303&to=%2Fafter', 'GET /after']);
  });

  it('answers any HTTP status as the result, as RAGFlow does', async () => {
    expect((await invoke({ url: `${allowed.origin}/status?code=503` })).text).toBe('status 503');
  });

  it('connects to the address the guard checked: the name is looked up once, never again', async () => {
    let lookups = 0;
    const once: Resolver = async (host) => {
      lookups++;
      // "pinned.example" exists only in this resolver: a second lookup by the socket would fail.
      if (host !== 'pinned.example') throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' });
      return [{ address: '127.0.0.1', family: 4 }];
    };
    const exec = createInvokeExecutor({ resolver: once });
    const url = `http://pinned.example:${allowed.port}/pinned`;
    await exec({ params: { url }, args: { url }, env: { NETWORK_ALLOW_HOSTS: allowList() }, signal: new AbortController().signal, tenantId: 't' });
    expect(lookups).toBe(1);
    expect(last()).toMatchObject({ url: '/pinned', headers: expect.objectContaining({ host: `pinned.example:${allowed.port}` }) });
  });

  it('gives up after its timeout, as a retryable error', async () => {
    const err = await invoke({ url: `${allowed.origin}/hang`, timeout: 1 }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ code: 'TOOL_UNAVAILABLE', message: `Invoke: ${allowed.origin}/hang did not answer within 1 s` });
  });

  it('refuses an answer too large for a node result (outputs travel in workflow history)', async () => {
    await expect(invoke({ url: `${allowed.origin}/big?n=1000001` })).rejects.toMatchObject({
      code: 'TOOL_BAD_REQUEST',
      message: expect.stringMatching(/is 1000001 characters, more than the 1000000 a node result may hold/),
    });
    await expect(invoke({ url: `${allowed.origin}/big?n=${9 * 1024 * 1024}` })).rejects.toMatchObject({
      code: 'TOOL_BAD_REQUEST',
      message: expect.stringMatching(/is larger than 8388608 bytes/),
    });
  });

  it('goes through an allowed proxy (absolute-form request)', async () => {
    await invoke({ url: `${allowed.origin}/via-proxy?x=1`, proxy: `127.0.0.1:${proxy.port}` });
    expect(proxy.requests.at(-1)).toMatchObject({ method: 'GET', url: `${allowed.origin}/via-proxy?x=1` });
  });
});

describe('Invoke as a canvas node, in a workflow', () => {
  let store: Store;
  let temporal: TemporalHandles;
  let worker: RunningWorker;
  let deps: LaunchDeps;
  const tenantId = 'tenant-invoke-http';

  beforeAll(async () => {
    [store, temporal] = await Promise.all([openStore({}), connectTemporal()]);
    await store.tenants.ensure(tenantId, 'invoke http tests');
    worker = await startWorker({
      nativeConnection: temporal.nativeConnection,
      store,
      llmBaseUrl: 'http://127.0.0.1:9/v1',
      env: { NETWORK_ALLOW_HOSTS: allowList() },
    });
    deps = { store, client: temporal.client, taskQueue: worker.taskQueue, settings: { ...DEFAULT_RUN_SETTINGS, heartbeatTimeoutMs: 2000 } };
  });

  afterAll(async () => {
    await worker?.stop();
    await Promise.all([temporal?.close(), store?.close()]);
  });

  async function run(invokeParams: Record<string, unknown>, query: string) {
    const canvas = dsl({
      begin: { name: 'Begin', downstream: ['Invoke:call'] },
      'Invoke:call': { name: 'Invoke', params: invokeParams, downstream: ['Message:m'] },
      'Message:m': { name: 'Message', params: { content: ['Page: {Invoke:call@result}'] } },
    });
    const saved = await store.canvases.create({ tenantId, title: `invoke ${Date.now()} ${Math.random()}`, dsl: canvas });
    const launched = await launchRun(deps, { tenantId, canvas: saved, sessionId: null, query, inputs: null, files: [], userId: 'u', session: null });
    const result = (await temporal.client.workflow.getHandle(launched.workflowId).result()) as CanvasRunResult;
    return { result, events: await store.events.list(launched.runId, null, 1000) };
  }

  it('calls the allowed host with resolved variables and shows the cleaned page', async () => {
    const before = allowed.requests.length;
    const { result, events } = await run(
      {
        url: `${allowed.origin}/html`,
        method: 'get',
        variables: [
          { key: 'q', ref: 'sys.query' },
          { key: 'lang', value: 'en' },
        ],
        headers: '{"X-Token": "tok-1", "X-Q": "{sys.query}"}',
        clean_html: true,
      },
      'temporal durability',
    );
    expect(result.status).toBe('finished');
    expect(result.content).toMatch(/^Page: HELLO\s+Plain text and a link\.$/);
    const sent = allowed.requests.slice(before);
    expect(sent.map((r) => r.url)).toEqual(['/html?q=temporal+durability&lang=en']);
    expect(sent[0]!.headers).toMatchObject({ 'x-token': 'tok-1', 'x-q': 'temporal durability' });
    const done = nodeFinished(events, 'Invoke:call')!;
    expect(done.data.inputs).toMatchObject({ url: `${allowed.origin}/html`, q: 'temporal durability', lang: 'en' });
    expect(JSON.stringify(done.data.inputs)).not.toContain('tok-1');
  });

  it('fails the run with the guard message, and the blocked target sees nothing', async () => {
    const { result } = await run({ url: `${forbidden.origin}/secret` }, 'x');
    expect(result.status).toBe('failed');
    expect(result.error).toMatch(/127\.0\.0\.1 is a loopback address; blocked \(allow it with NETWORK_ALLOW_HOSTS\)/);
    nothingReachedForbidden();
  });
});
