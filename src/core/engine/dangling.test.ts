/**
 * Dangling references, as lenient as RAGFlow's loaders where they are lenient: its Go compiler
 * builds a canvas whose Switch branch names a missing component (internal/agent/dsl/testdata/
 * all.json, pinned by fixture_compile_test.go) and wires edges from `upstream` only; its Python
 * engine fails only when the path reaches a missing component. An unknown `upstream` stays an
 * error, as the Go compiler refuses it ("component %q has unknown upstream %q").
 */
import { describe, expect, it } from 'vitest';
import { dsl } from '../../../test/helpers/canvasKit';
import { driver } from '../../../test/helpers/engineDriver';
import { compileCanvas } from './compile';

const switchTo = (missingBranch: string) =>
  dsl({
    begin: { name: 'Begin', downstream: ['Switch:s'] },
    'Switch:s': {
      name: 'Switch',
      params: {
        conditions: [{ logical_operator: 'and', items: [{ cpn_id: 'sys.query', operator: 'contains', value: 'gone' }], to: [missingBranch] }],
        end_cpn_ids: ['Message:ok'],
      },
      downstream: ['Message:ok'],
    },
    'Message:ok': { name: 'Message', params: { content: ['fine'] } },
  });

describe('dangling references, as RAGFlow loads them', () => {
  it('compiles a Switch branch to a missing component, with a warning at its JSON path', () => {
    const r = compileCanvas(switchTo('CodeExec:FunnyBroomsShare'));
    expect(r.ok).toBe(true);
    expect(r.ok && r.warnings).toContainEqual({
      path: '$.components["Switch:s"].obj.params.conditions[0].to[0]',
      message: 'target component "CodeExec:FunnyBroomsShare" does not exist: a run that takes this branch fails',
    });
  });

  it('runs the other branches; only a run that takes the missing one fails, naming it', async () => {
    const r = compileCanvas(switchTo('CodeExec:FunnyBroomsShare'));
    if (!r.ok) throw new Error('expected the canvas to compile');
    const fine = await driver({}).run(r.canvas, { query: 'all good' });
    expect(fine.state.status).toBe('finished');
    expect(fine.state.outputs['Message:ok']!.content).toBe('fine');
    const taken = await driver({}).run(r.canvas, { query: 'gone' });
    expect(taken.state.status).toBe('failed');
    expect(taken.state.error).toBe(
      'The run went to component "CodeExec:FunnyBroomsShare", which does not exist in the canvas (a downstream, branch or exception_goto names it)',
    );
    expect(taken.events.at(-1)!.event).toBe('run_failed');
  });

  it('warns of a downstream or exception_goto naming no component, and fails the run that goes there', async () => {
    const r = compileCanvas(
      dsl({
        begin: { name: 'Begin', downstream: ['LLM:a', 'Nowhere:1'] },
        'LLM:a': { name: 'LLM', params: { llm_id: 'm@OpenAI', exception_method: 'goto', exception_goto: ['Nowhere:2'] } },
      }),
    );
    if (!r.ok) throw new Error(`expected the canvas to compile: ${JSON.stringify(r.problems)}`);
    expect(r.warnings.map((w) => w.path)).toEqual(
      expect.arrayContaining(['$.components.begin.downstream[1]', '$.components["LLM:a"].obj.params.exception_goto[0]']),
    );
    const run = await driver({ 'LLM:a': [{ error: 'model down' }] }).run(r.canvas);
    expect(run.state.status).toBe('failed');
    expect(run.state.error).toMatch(/component "Nowhere:1", which does not exist/);
  });

  it('still refuses an upstream naming no component, as RAGFlow’s Go compiler does', () => {
    const input = switchTo('Message:ok') as { components: Record<string, { upstream: string[] }> };
    input.components['Message:ok']!.upstream.push('Ghost:1');
    const r = compileCanvas(input);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.problems).toContainEqual({ path: '$.components["Message:ok"].upstream[1]', message: 'upstream component "Ghost:1" does not exist' });
  });
});
