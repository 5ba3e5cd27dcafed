/**
 * CodeExec end to end on the Temporal dev server: a canvas node whose arguments are variable
 * references resolved in the workflow and whose dict result fills the declared outputs a Message
 * reads; a script error failing the node with its traceback; and CodeExec as an Agent tool, the
 * model writing the script.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchRun, type LaunchDeps } from '../../api/services/runLauncher';
import { openStore } from '../../src/io/store/store';
import type { Store } from '../../src/io/store/contract';
import { cancelSignal, DEFAULT_RUN_SETTINGS, type CanvasRunResult } from '../../workflows/definitions';
import { dsl } from '../helpers/canvasKit';
import { startScriptedLlm, type RecordedCall, type ScriptedLlm } from '../helpers/scriptedLlm';
import { connectTemporal, startWorker, type RunningWorker, type TemporalHandles } from '../helpers/temporal';

let store: Store;
let llm: ScriptedLlm;
let temporal: TemporalHandles;
let worker: RunningWorker;
let deps: LaunchDeps;
const tenantId = 'tenant-codeexec';

beforeAll(async () => {
  [store, llm, temporal] = await Promise.all([openStore({}), startScriptedLlm(), connectTemporal()]);
  await store.tenants.ensure(tenantId, 'code exec tests');
  worker = await startWorker({
    nativeConnection: temporal.nativeConnection,
    store,
    llmBaseUrl: llm.url,
    env: { CODE_EXEC_TIMEOUT_S: '20', CODE_EXEC_UID: '60002', CODE_EXEC_GID: '60002' },
  });
  deps = { store, client: temporal.client, taskQueue: worker.taskQueue, settings: { ...DEFAULT_RUN_SETTINGS, heartbeatTimeoutMs: 2000 } };
});

afterAll(async () => {
  await worker?.stop();
  await Promise.all([temporal?.close(), llm?.stop(), store?.close()]);
});

async function start(title: string, canvas: Record<string, unknown>, query: string) {
  const saved = await store.canvases.create({ tenantId, title: `${title} ${Date.now()}`, dsl: canvas });
  const launched = await launchRun(deps, { tenantId, canvas: saved, sessionId: null, query, inputs: null, files: [], userId: 'u1', session: null });
  return { ...launched, handle: temporal.client.workflow.getHandle(launched.workflowId) };
}

async function run(title: string, canvas: Record<string, unknown>, query: string) {
  const started = await start(title, canvas, query);
  const result = (await started.handle.result()) as CanvasRunResult;
  const events = await store.events.list(started.runId, null, 10_000);
  return { result, events };
}

/** Processes of this file's sandbox user (CODE_EXEC_UID) on the host right now. */
function sandboxProcesses(): number {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((pid) => {
      try {
        return /^Uid:\s+60002\s/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
      } catch {
        return false;
      }
    }).length;
}

const sleeper = (seconds: number) =>
  dsl({
    begin: { name: 'Begin', downstream: ['CodeExec:slow'] },
    'CodeExec:slow': {
      name: 'CodeExec',
      params: { script: `import time\n\ndef main():\n    time.sleep(${seconds})\n    return "slept"\n`, outputs: { result: { type: 'String', value: '' } } },
      downstream: ['Message:m'],
    },
    'Message:m': { name: 'Message', params: { content: ['{CodeExec:slow@result}'] } },
  });

const STATS = [
  'def main(text: str, repeat: int) -> dict:',
  '    words = text.split()',
  '    return {"shout": " ".join([text.upper()] * repeat), "words": len(words)}',
].join('\n');

describe('CodeExec in a run', () => {
  it('runs as a canvas node: arguments from variables, a dict result in the declared outputs', async () => {
    const canvas = dsl(
      {
        begin: { name: 'Begin', downstream: ['VariableAssigner:v'] },
        'VariableAssigner:v': {
          name: 'VariableAssigner',
          params: { variables: [{ variable: 'env.times', operator: 'set', parameter: 2 }] },
          downstream: ['CodeExec:stats'],
        },
        'CodeExec:stats': {
          name: 'CodeExec',
          params: {
            lang: 'python',
            script: STATS,
            arguments: { text: 'sys.query', repeat: '{env.times}' },
            outputs: { shout: { type: 'String', value: '' }, words: { type: 'Number', value: '' } },
          },
          downstream: ['Message:m'],
        },
        'Message:m': { name: 'Message', params: { content: ['{CodeExec:stats@shout} ({CodeExec:stats@words} words)'] } },
      },
      { globals: { 'sys.query': '', 'sys.user_id': '', 'sys.conversation_turns': 0, 'sys.files': [], 'env.times': 1 } },
    );
    const r = await run('code node', canvas, 'hello durable world');
    expect(r.result).toMatchObject({ status: 'finished', content: 'HELLO DURABLE WORLD HELLO DURABLE WORLD (3 words)' });
    const done = r.events.find((e) => e.event === 'node_finished' && e.data.component_id === 'CodeExec:stats')!.data as {
      outputs: Record<string, unknown>;
      inputs: unknown;
      error: unknown;
    };
    expect(done.inputs).toEqual({ text: 'hello durable world', repeat: 2 });
    expect(done.outputs).toMatchObject({ shout: 'HELLO DURABLE WORLD HELLO DURABLE WORLD', words: 3, actual_type: 'Object' });
  });

  it("fails the node with the script's traceback, and its exception branch takes over", async () => {
    const canvas = dsl({
      begin: { name: 'Begin', downstream: ['CodeExec:bad'] },
      'CodeExec:bad': {
        name: 'CodeExec',
        params: {
          lang: 'javascript',
          script: 'function main({ n }) { return n.toFixed(2).missing.length; }',
          arguments: { n: 'sys.query' },
          exception_method: 'goto',
          exception_goto: ['Message:fallback'],
        },
        downstream: ['Message:ok'],
      },
      'Message:ok': { name: 'Message', params: { content: ['computed {CodeExec:bad@content}'] } },
      'Message:fallback': { name: 'Message', params: { content: ['fallback: {CodeExec:bad@_ERROR}'] } },
    });
    const r = await run('code error', canvas, 'not a number');
    expect(r.result.status).toBe('finished');
    expect(r.result.content).toMatch(/^fallback: CodeExec: the script failed:\nTypeError: n.toFixed is not a function\n {4}at main \(\/scratch\/main.js:1:/);
  });

  it('is an Agent tool: the model writes the script and reads its result', async () => {
    const seen: RecordedCall[] = [];
    llm.when((call) => {
      if (!call.body.messages.some((m) => typeof m.content === 'string' && m.content.includes('MARK-code'))) return undefined;
      seen.push(call);
      if (seen.length === 1) {
        const script = 'def main():\n    return {"primes": [n for n in range(2, 30) if all(n % d for d in range(2, n))]}\n';
        return { toolCalls: [{ id: 'c1', name: 'execute_code_0', arguments: JSON.stringify({ lang: 'python', script }) }] };
      }
      return { content: 'There are 10 primes below 30.' };
    });
    const canvas = dsl({
      begin: { name: 'Begin', downstream: ['Agent:a'] },
      'Agent:a': {
        name: 'Agent',
        params: { llm_id: 'scripted@OpenAI', sys_prompt: 'MARK-code You compute.', tools: [{ component_name: 'CodeExec', name: 'Code', params: {} }] },
        downstream: ['Message:m'],
      },
      'Message:m': { name: 'Message', params: { content: ['{Agent:a@content}'] } },
    });
    const r = await run('code tool', canvas, 'how many primes below 30?');
    expect(r.result).toMatchObject({ status: 'finished', content: 'There are 10 primes below 30.' });
    const tools = seen[0]!.body.tools as Array<{ function: { name: string; parameters: { required: string[] } } }>;
    expect(tools.map((t) => t.function.name)).toEqual(['execute_code_0']);
    expect(tools[0]!.function.parameters.required).toEqual(['lang', 'script']);
    const answer = seen[1]!.body.messages.find((m) => m.role === 'tool');
    expect(JSON.parse(String(answer?.content))).toEqual({ primes: [2, 3, 5, 7, 11, 13, 17, 19, 23, 29] });
  });

  it('heartbeats through a script longer than the heartbeat timeout; a cancelled run stops its script', async () => {
    const long = await run('code slow', sleeper(3), 'go');
    expect(long.result).toMatchObject({ status: 'finished', content: 'slept' });

    const r = await start('code cancel', sleeper(30), 'go');
    const deadline = Date.now() + 10_000;
    while (sandboxProcesses() === 0 && Date.now() < deadline) await new Promise((ok) => setTimeout(ok, 50));
    expect(sandboxProcesses()).toBeGreaterThan(0);
    const sentAt = Date.now();
    await r.handle.signal(cancelSignal, 'test cancels');
    expect(((await r.handle.result()) as CanvasRunResult).status).toBe('canceled');
    // Well under the script's 30 s: the cancel stopped it (a loose bound, the machine may be loaded).
    expect(Date.now() - sentAt).toBeLessThan(15_000);
    expect(sandboxProcesses()).toBe(0);
  });
});
