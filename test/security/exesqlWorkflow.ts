/**
 * ExeSQL through Temporal: as a canvas node (SQL from `sys.query`) and as an Agent tool
 * (`execute_sql_0`, SQL from the scripted model), against the database the caller set up with a
 * table `t` of five rows. Used by exesql.test.ts for PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchRun, type LaunchDeps } from '../../api/services/runLauncher';
import { openStore } from '../../src/io/store/store';
import type { Store } from '../../src/io/store/contract';
import { DEFAULT_RUN_SETTINGS, type CanvasRunResult } from '../../workflows/definitions';
import { dsl } from '../helpers/canvasKit';
import { startScriptedLlm, type RecordedCall, type ScriptedLlm } from '../helpers/scriptedLlm';
import { connectTemporal, startWorker, type RunningWorker, type TemporalHandles } from '../helpers/temporal';

export function exeSqlWorkflowCases(params: () => Record<string, unknown>, allow: () => string, rowCount: () => Promise<number>): void {
  describe('in a workflow', () => {
    let store: Store;
    let llm: ScriptedLlm;
    let temporal: TemporalHandles;
    let worker: RunningWorker;
    let deps: LaunchDeps;
    const tenantId = 'tenant-exesql';

    beforeAll(async () => {
      [store, llm, temporal] = await Promise.all([openStore({}), startScriptedLlm(), connectTemporal()]);
      await store.tenants.ensure(tenantId, 'exesql tests');
      worker = await startWorker({ nativeConnection: temporal.nativeConnection, store, llmBaseUrl: llm.url, env: { NETWORK_ALLOW_HOSTS: allow() } });
      deps = { store, client: temporal.client, taskQueue: worker.taskQueue, settings: { ...DEFAULT_RUN_SETTINGS, heartbeatTimeoutMs: 2000 } };
    });

    afterAll(async () => {
      await worker?.stop();
      await Promise.all([temporal?.close(), llm?.stop(), store?.close()]);
    });

    async function run(canvas: Record<string, unknown>, query: string) {
      const saved = await store.canvases.create({ tenantId, title: `exesql ${Date.now()} ${Math.random()}`, dsl: canvas });
      const launched = await launchRun(deps, { tenantId, canvas: saved, sessionId: null, query, inputs: null, files: [], userId: 'u', session: null });
      const handle = temporal.client.workflow.getHandle(launched.workflowId);
      return { result: (await handle.result()) as CanvasRunResult, history: JSON.stringify(await handle.fetchHistory()) };
    }

    const nodeCanvas = () =>
      dsl({
        begin: { name: 'Begin', downstream: ['ExeSQL:q'] },
        'ExeSQL:q': { name: 'ExeSQL', params: params(), downstream: ['Message:m'] },
        'Message:m': { name: 'Message', params: { content: ['{ExeSQL:q@formalized_content}'] } },
      });

    it('runs as a canvas node; the password never enters workflow history', async () => {
      const { result, history } = await run(nodeCanvas(), '```sql\nSELECT name FROM t WHERE id = 1;\n```');
      expect(result.status).toBe('finished');
      expect(result.content).toBe('| name   |\n|:-------|\n| apple  |');
      expect(history).not.toContain(String(params().password));
    });

    it('fails the node on a write, with the read-only message, and the table is intact', async () => {
      const { result } = await run(nodeCanvas(), 'DELETE FROM t');
      expect(result.status).toBe('failed');
      expect(result.error).toMatch(/ExeSQL is read-only: DELETE statements are not allowed/);
      expect(await rowCount()).toBe(5);
    });

    it('is an Agent tool: the model reads the table, and a refused write comes back as an error it can read', async () => {
      const seen: RecordedCall[] = [];
      const tc = (id: string, sql: string) => ({ id, name: 'execute_sql_0', arguments: JSON.stringify({ sql }) });
      llm.when((call) => {
        if (!call.body.messages.some((m) => typeof m.content === 'string' && m.content.includes('MARK-sql'))) return undefined;
        seen.push(call);
        return (
          [{ toolCalls: [tc('c1', 'SELECT count(*) AS n FROM t'), tc('c2', 'DROP TABLE t')] }, { content: 'There are 5 rows.' }][seen.length - 1] ?? {
            content: 'done',
          }
        );
      });
      const canvas = dsl({
        begin: { name: 'Begin', downstream: ['Agent:a'] },
        'Agent:a': {
          name: 'Agent',
          params: {
            llm_id: 'scripted@OpenAI',
            sys_prompt: 'MARK-sql You answer with SQL.',
            tools: [{ component_name: 'ExeSQL', name: 'SQL', params: params() }],
          },
          downstream: ['Message:m'],
        },
        'Message:m': { name: 'Message', params: { content: ['{Agent:a@content}'] } },
      });
      const { result } = await run(canvas, 'how many rows?');
      expect(result).toMatchObject({ status: 'finished', content: 'There are 5 rows.' });
      const tools = (seen[0]!.body.tools as Array<{ function: { name: string; description: string } }>).map((t) => t.function);
      expect(tools).toEqual([expect.objectContaining({ name: 'execute_sql_0', description: expect.stringContaining('read-only') })]);
      const answers = seen[1]!.body.messages.filter((m) => m.role === 'tool').map((m) => String(m.content));
      expect(answers[0]).toBe('|   n |\n|----:|\n|   5 |');
      expect(answers[1]).toMatch(/ExeSQL is read-only: DROP statements are not allowed/);
      expect(await rowCount()).toBe(5);
    });
  });
}
