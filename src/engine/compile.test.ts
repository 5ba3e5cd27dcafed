import { describe, expect, it } from 'vitest';
import { dsl } from '../../test/helpers/canvasKit';
import { readCanvasInput } from '../dsl/input';
import { compileCanvas } from './compile';

function problems(value: unknown) {
  const input = readCanvasInput(value);
  const r = compileCanvas(input.dsl, { base: input.base });
  return r.ok ? [] : r.problems;
}

describe('canvas validation', () => {
  it('reports every problem at once, each with its JSON path', () => {
    const bad = dsl({
      begin: { name: 'Begin', downstream: ['LLM:a', 'Nowhere:1'] },
      'LLM:a': { name: 'LLM', params: { llm_id: 'm', temperature: 7, prompts: [{ role: 'user', content: '{Ghost:x@content}' }] }, downstream: ['Mystery:m'] },
      'Mystery:m': { name: 'Mystery' },
      'Switch:s': { name: 'Switch', params: { conditions: [{ logical_operator: 'and', items: [{ cpn_id: 'sys.query', operator: 'looks like', value: 'x' }], to: ['Gone:1'] }], end_cpn_ids: ['begin'] } },
    });
    const found = problems(bad);
    const paths = found.map((p) => p.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        '$.components.begin.downstream[1]',
        '$.components["LLM:a"].obj.params.temperature',
        '$.components["LLM:a"].obj.params.prompts[0].content',
        '$.components["Mystery:m"].obj.component_name',
        '$.components["Switch:s"].obj.params.conditions[0].items[0].operator',
      ]),
    );
    expect(found.find((p) => p.path.endsWith('downstream[1]'))!.message).toMatch(/"Nowhere:1" does not exist/);
    expect(found.find((p) => p.path.endsWith('content'))!.message).toMatch(/Ghost:x/);
    expect(found.find((p) => p.path.endsWith('component_name'))!.message).toMatch(/unknown component "Mystery"/);
  });

  it('reports routing targets that do not exist', () => {
    const bad = dsl({
      begin: { name: 'Begin', downstream: ['Switch:s'] },
      'Switch:s': { name: 'Switch', params: { conditions: [{ items: [{ cpn_id: 'sys.query', operator: 'contains', value: 'x' }], to: ['Gone:1'] }], end_cpn_ids: ['begin'] } },
    });
    expect(problems(bad)).toContainEqual({ path: '$.components["Switch:s"].obj.params.conditions[0].to[0]', message: 'target component "Gone:1" does not exist' });
  });

  it('requires a begin component', () => {
    expect(problems(dsl({ 'Message:m': { name: 'Message', params: { content: ['x'] } } }))).toContainEqual({ path: '$.components', message: 'the canvas has no "begin" component' });
  });

  it('rejects a cycle that nothing breaks, and accepts one through a legacy Answer', () => {
    const loop = dsl({
      begin: { name: 'Begin', downstream: ['LLM:a'] },
      'LLM:a': { name: 'LLM', params: { llm_id: 'm' }, downstream: ['LLM:b'] },
      'LLM:b': { name: 'LLM', params: { llm_id: 'm' }, downstream: ['LLM:a'] },
    });
    expect(problems(loop)).toEqual([{ path: '$.components["LLM:a"].downstream', message: expect.stringMatching(/cycle LLM:a → LLM:b → LLM:a/) }]);
    const turns = dsl({
      begin: { name: 'Begin', downstream: ['answer:0'] },
      'answer:0': { name: 'Answer', downstream: ['Generate:g'] },
      'Generate:g': { name: 'Generate', params: { llm_id: 'm', prompt: 'hi' }, downstream: ['answer:0'] },
    });
    expect(problems(turns)).toEqual([]);
  });

  it('reports structural problems in RAGFlow’s export form under $.dsl', () => {
    expect(problems({ title: 'x', dsl: { components: { begin: { obj: { params: {} } } } } })).toContainEqual({
      path: '$.dsl.components.begin.obj.component_name',
      message: expect.any(String),
    });
  });

  it('normalizes RAGFlow v0.x shapes before validating', () => {
    const old = dsl({
      begin: { name: 'Begin', downstream: ['categorize:0'] },
      'categorize:0': { name: 'Categorize', params: { llm_id: 'm', category_description: { a: { description: 'A', examples: 'one\ntwo', to: 'message:0' } } }, downstream: ['message:0'] },
      'message:0': { name: 'Message', params: { messages: ['hello'] } },
    });
    const input = readCanvasInput(old);
    const r = compileCanvas(input.dsl);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.canvas.nodes['categorize:0']!.params).toMatchObject({ category_description: { a: { examples: ['one', 'two'], to: ['message:0'] } } });
    expect(r.canvas.nodes['message:0']!.params).toMatchObject({ content: ['hello'] });
  });
});
