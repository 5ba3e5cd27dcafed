/**
 * A Switch branch whose `to` names a component that does not exist, over HTTP: saved as RAGFlow's
 * Go engine compiles it (its all.json fixture pins one), with a warning naming the JSON path; a run
 * that takes another branch answers; only a run that takes that branch fails, and says why.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startHarness, type Harness } from '../helpers/appHarness';
import { dsl } from '../helpers/canvasKit';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 120_000);
afterAll(async () => h?.close());

const canvas = dsl({
  begin: { name: 'Begin', downstream: ['Switch:Route'] },
  'Switch:Route': {
    name: 'Switch',
    params: {
      conditions: [{ logical_operator: 'and', items: [{ cpn_id: 'sys.query', operator: 'contains', value: 'code' }], to: ['CodeExec:FunnyBroomsShare'] }],
      end_cpn_ids: ['Message:ok'],
    },
    downstream: ['Message:ok'],
  },
  'Message:ok': { name: 'Message', params: { content: ['fine'] } },
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are read field by field
type Res = { code: number; message?: string; data?: any; warnings?: Array<{ path: string; message: string }> };

describe('a Switch branch to a missing component', () => {
  it('is saved with a warning at its JSON path; only the run that takes the branch fails, naming the component', async () => {
    const created = (await api(h, 'POST', '/api/v1/agents', { body: { title: `dangling ${Date.now()}`, dsl: canvas } })).body as Res;
    expect(created.code).toBe(0);
    expect(created.warnings).toEqual([
      {
        path: '$.dsl.components["Switch:Route"].obj.params.conditions[0].to[0]',
        message: 'target component "CodeExec:FunnyBroomsShare" does not exist: a run that takes this branch fails',
      },
    ]);
    const ask = async (query: string) =>
      (await api(h, 'POST', '/api/v1/agents/chat/completions', { body: { agent_id: created.data.id, query, stream: false } })).body as Res;
    const fine = await ask('hello');
    expect(fine.code).toBe(0);
    expect(JSON.stringify(fine.data)).toContain('fine');
    const taken = await ask('run the code');
    expect(JSON.stringify(taken)).toContain('The run went to component \\"CodeExec:FunnyBroomsShare\\", which does not exist in the canvas');
  }, 120_000);
});
