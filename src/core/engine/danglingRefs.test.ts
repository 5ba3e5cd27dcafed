/**
 * Variable references to components that do not exist, as RAGFlow treats them: neither of its
 * engines checks references when loading a canvas (the Go compiler wires `upstream` only), and
 * reading one fails — Python's `get_variable_value` raises "Can't find variable: 'Ghost@x'",
 * Go's `ResolveTemplate` returns "unresolved reference". So the canvas compiles with a warning at
 * the reference's JSON path, runs that never read it finish, and the component that reads it
 * fails naming it (never deferred for ever by the batch dependency check).
 */
import { describe, expect, it } from 'vitest';
import { dsl } from '../../../test/helpers/canvasKit';
import { driver } from '../../../test/helpers/engineDriver';
import { compileCanvas } from './compile';

const readsGhost = () =>
  dsl({
    begin: { name: 'Begin', downstream: ['Switch:s'] },
    'Switch:s': {
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

describe('references to components that do not exist, as RAGFlow runs them', () => {
  it('compiles the canvas, with a warning at the reference’s JSON path', () => {
    const r = compileCanvas(readsGhost());
    if (!r.ok) throw new Error(`expected the canvas to compile: ${JSON.stringify(r.problems)}`);
    expect(r.warnings).toContainEqual({
      path: '$.components["Message:ghost"].obj.params.content[0]',
      message: 'reference {Ghost:1@content} points to component "Ghost:1", which does not exist: "Message:ghost" fails when it reads it',
    });
  });

  it('finishes a run that never reads the reference', async () => {
    const r = compileCanvas(readsGhost());
    if (!r.ok) throw new Error('expected the canvas to compile');
    const run = await driver({}).run(r.canvas, { query: 'all good' });
    expect(run.state.status).toBe('finished');
    expect(run.state.outputs['Message:ok']!.content).toBe('fine');
  });

  it('fails the component that reads it, naming the reference, as RAGFlow’s "Can\'t find variable"', async () => {
    const r = compileCanvas(readsGhost());
    if (!r.ok) throw new Error('expected the canvas to compile');
    const run = await driver({}).run(r.canvas, { query: 'ghost' });
    expect(run.state.nodes['Message:ghost']!.status).toBe('failed');
    expect(run.state.nodes['Message:ghost']!.error).toBe(`Can't find variable: 'Ghost:1@content' (no component "Ghost:1")`);
    expect(run.state.status).toBe('failed');
    expect(run.events.at(-1)!.event).toBe('run_failed');
  });

  it('runs, and fails, a component whose only input is the missing one instead of deferring it for ever', async () => {
    const r = compileCanvas(
      dsl({
        begin: { name: 'Begin', downstream: ['LLM:a'] },
        'LLM:a': { name: 'LLM', params: { llm_id: 'm@OpenAI', sys_prompt: 'Use {Ghost:2@content}', prompts: [{ role: 'user', content: '{sys.query}' }] } },
      }),
    );
    if (!r.ok) throw new Error(`expected the canvas to compile: ${JSON.stringify(r.problems)}`);
    expect(r.warnings.map((w) => w.path)).toContain('$.components["LLM:a"].obj.params.sys_prompt');
    const run = await driver({ 'LLM:a': ['never asked'] }).run(r.canvas, { query: 'hi' });
    expect(run.state.nodes['LLM:a']?.status).toBe('failed');
    expect(run.state.status).toBe('failed');
    expect(run.state.error).toMatch(/Can't find variable: 'Ghost:2@content'/);
  });
});
