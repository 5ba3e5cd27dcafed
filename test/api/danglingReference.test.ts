/**
 * A variable reference to a component that does not exist, over HTTP: saved as RAGFlow loads it
 * (neither of its engines checks references at load), with a warning naming the JSON path; a run
 * that never reads it answers; the run whose Message reads it fails with RAGFlow's
 * "Can't find variable" naming the reference, instead of showing "" in its place.
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
      conditions: [{ logical_operator: 'and', items: [{ cpn_id: 'sys.query', operator: 'contains', value: 'ghost' }], to: ['Message:ghost'] }],
      end_cpn_ids: ['Message:ok'],
    },
    downstream: ['Message:ghost', 'Message:ok'],
  },
  'Message:ghost': { name: 'Message', params: { content: ['Said: {Ghost:1@content}'] } },
  'Message:ok': { name: 'Message', params: { content: ['fine'] } },
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are read field by field
type Res = { code: number; message?: string; data?: any; warnings?: Array<{ path: string; message: string }> };

describe('a reference to a missing component', () => {
  it('is saved with a warning at its JSON path; only the run that reads it fails, naming the reference', async () => {
    const created = (await api(h, 'POST', '/api/v1/agents', { body: { title: `dangling ref ${Date.now()}`, dsl: canvas } })).body as Res;
    expect(created.code).toBe(0);
    expect(created.warnings).toEqual([
      {
        path: '$.dsl.components["Message:ghost"].obj.params.content[0]',
        message: 'reference {Ghost:1@content} points to component "Ghost:1", which does not exist: "Message:ghost" fails when it reads it',
      },
    ]);
    const ask = async (query: string) =>
      (await api(h, 'POST', '/api/v1/agents/chat/completions', { body: { agent_id: created.data.id, query, stream: false } })).body as Res;
    const fine = await ask('hello');
    expect(fine.code).toBe(0);
    expect(JSON.stringify(fine.data)).toContain('fine');
    const read = await ask('say the ghost');
    expect(JSON.stringify(read)).toContain("Can't find variable: 'Ghost:1@content'");
    expect(JSON.stringify(read)).not.toContain('Said: ');
  }, 120_000);
});
