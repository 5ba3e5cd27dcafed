import { describe, expect, it } from 'vitest';
import { dsl } from '../../../test/helpers/canvasKit';
import { readCanvasInput } from '../dsl/input';
import { compileCanvas } from './compile';

function problems(value: unknown) {
  const input = readCanvasInput(value);
  const r = compileCanvas(input.dsl, { base: input.base });
  // Reference problems too: the API refuses to save a canvas with them.
  return r.ok ? [...r.warnings, ...r.referenceProblems] : r.problems;
}

describe('canvas validation', () => {
  it('reports every problem at once, each with its JSON path', () => {
    const bad = dsl({
      begin: { name: 'Begin', downstream: ['LLM:a', 'Nowhere:1'] },
      'LLM:a': { name: 'LLM', params: { llm_id: 'm', temperature: 7, prompts: [{ role: 'user', content: '{Ghost:x@content}' }] }, downstream: ['Mystery:m'] },
      'Mystery:m': { name: 'Mystery' },
      'Switch:s': {
        name: 'Switch',
        params: {
          conditions: [{ logical_operator: 'and', items: [{ cpn_id: 'sys.query', operator: 'looks like', value: 'x' }], to: ['Gone:1'] }],
          end_cpn_ids: ['begin'],
        },
      },
    });
    const found = problems(bad);
    const paths = found.map((p) => p.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        '$.components["LLM:a"].obj.params.temperature',
        '$.components["Mystery:m"].obj.component_name',
        '$.components["Switch:s"].obj.params.conditions[0].items[0].operator',
      ]),
    );
    // A downstream naming no component is RAGFlow-lenient: a warning (dangling.test.ts), not among the errors.
    // So is a reference to no component: the component reading it fails (danglingRefs.test.ts).
    expect(paths).not.toContain('$.components.begin.downstream[1]');
    expect(paths).not.toContain('$.components["LLM:a"].obj.params.prompts[0].content');
    expect(found.find((p) => p.path.endsWith('component_name'))!.message).toMatch(/unknown component "Mystery"/);
  });

  it('warns of routing targets that do not exist (RAGFlow compiles such a canvas)', () => {
    const bad = dsl({
      begin: { name: 'Begin', downstream: ['Switch:s'] },
      'Switch:s': {
        name: 'Switch',
        params: { conditions: [{ items: [{ cpn_id: 'sys.query', operator: 'contains', value: 'x' }], to: ['Gone:1'] }], end_cpn_ids: ['Message:m'] },
        downstream: ['Message:m'],
      },
      'Message:m': { name: 'Message', params: { content: ['else'] } },
    });
    expect(problems(bad)).toContainEqual({
      path: '$.components["Switch:s"].obj.params.conditions[0].to[0]',
      message: 'target component "Gone:1" does not exist: a run that takes this branch fails',
    });
  });

  it('requires a begin component', () => {
    expect(problems(dsl({ 'Message:m': { name: 'Message', params: { content: ['x'] } } }))).toContainEqual({
      path: '$.components',
      message: 'the canvas has no "begin" component',
    });
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
      'categorize:0': {
        name: 'Categorize',
        params: { llm_id: 'm', category_description: { a: { description: 'A', examples: 'one\ntwo', to: 'message:0' } } },
        downstream: ['message:0'],
      },
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

describe('canvases that could never run', () => {
  const msg = (content: string) => ({ name: 'Message', params: { content: [content] } });

  it('reports a DSL nested 10 000 levels deep as one problem instead of overflowing the stack', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 10_000; i++) deep = [deep];
    const canvas = dsl({ begin: { name: 'Begin', downstream: ['Message:m'] }, 'Message:m': msg('hi') });
    (canvas.components as Record<string, { obj: { params: Record<string, unknown> } }>)['Message:m']!.obj.params.extra = deep;
    expect(problems({ dsl: canvas })).toEqual([{ path: '$.dsl', message: 'the DSL nests arrays/objects deeper than the limit of 64 levels' }]);
    const text = JSON.stringify(dsl({ begin: { name: 'Begin', downstream: ['Message:m'] }, 'Message:m': msg('hi') })).replace(
      '"history":[]',
      `"history":${'['.repeat(10_000)}${']'.repeat(10_000)}`,
    );
    expect(problems(text)).toEqual([{ path: '$', message: 'the DSL nests arrays/objects deeper than the limit of 64 levels' }]);
  });

  it('reports a NUL or a lone surrogate in a component id or a param with its path', () => {
    const found = problems(dsl({ begin: { name: 'Begin', downstream: ['Message:\u0000'] }, 'Message:\u0000': msg('a\uD800b') }));
    expect(found).toEqual(
      expect.arrayContaining([
        { path: '$.components', message: 'has a key that contains a NUL character (\\u0000): "Message:\\u0000"' },
        { path: '$.components.begin.downstream[0]', message: 'contains a NUL character (\\u0000)' },
        { path: '$.components["Message:\\u0000"].obj.params.content[0]', message: 'contains a lone UTF-16 surrogate (invalid Unicode)' },
      ]),
    );
  });

  it('names __proto__ as a component id instead of dropping it', () => {
    const text = JSON.stringify(dsl({ begin: { name: 'Begin', downstream: ['x'] }, x: msg('hi') })).replaceAll('"x"', '"__proto__"');
    expect(problems(JSON.parse(text))).toEqual([
      { path: '$.components.__proto__', message: '"__proto__" cannot be a component id (it is reserved in JavaScript objects); rename the component' },
    ]);
  });

  it('accepts constructor as an ordinary component id', () => {
    const text = JSON.stringify(dsl({ begin: { name: 'Begin', downstream: ['x'] }, x: msg('hi {x@content}') }))
      .replaceAll('"x"', '"constructor"')
      .replace('{x@', '{constructor@');
    expect(problems(JSON.parse(text))).toEqual([]);
  });

  it('reports an unknown system variable', () => {
    expect(problems(dsl({ begin: { name: 'Begin', downstream: ['Message:m'] }, 'Message:m': msg('hi {sys.nope}') }))).toEqual([
      {
        path: '$.components["Message:m"].obj.params.content[0]',
        message: expect.stringMatching(/^reference \{sys\.nope\} names no system variable \(known: sys\.query, /),
      },
    ]);
  });

  it('reports a reference to an output the component does not declare', () => {
    const found = problems(
      dsl({
        begin: { name: 'Begin', downstream: ['LLM:a'] },
        'LLM:a': { name: 'LLM', params: { llm_id: 'm' }, downstream: ['Message:m'] },
        'Message:m': msg('{LLM:a@answer} {LLM:a@content} {LLM:a@_elapsed_time}'),
      }),
    );
    expect(found).toEqual([
      {
        path: '$.components["Message:m"].obj.params.content[0]',
        message: 'reference {LLM:a@answer} reads output "answer", which component "LLM:a" does not declare (it has: content)',
      },
    ]);
  });

  it('warns about a component no path from begin reaches; the engine still runs the rest', () => {
    const input = dsl({ begin: { name: 'Begin', downstream: ['Message:m'] }, 'Message:m': msg('hi'), 'Message:lost': msg('never') });
    const r = compileCanvas(input);
    expect(r.ok && r.warnings).toEqual([
      {
        path: '$.components["Message:lost"]',
        message:
          'component "Message:lost" is not reachable from "begin" (no downstream, router or loop path leads to it), so it could never run; connect or remove it',
      },
    ]);
  });

  it('counts routes, error handlers and loop bodies as paths', () => {
    const r = compileCanvas(
      dsl({
        begin: { name: 'Begin', downstream: ['Switch:s'] },
        'Switch:s': {
          name: 'Switch',
          params: {
            conditions: [{ logical_operator: 'and', items: [{ cpn_id: 'sys.query', operator: 'contains', value: 'x' }], to: ['Message:yes'] }],
            end_cpn_ids: ['Message:no'],
          },
        },
        'Message:yes': msg('yes'),
        'Message:no': msg('no'),
      }),
    );
    expect(r.ok && r.warnings).toEqual([]);
  });
});

describe('outputs a Webhook-mode Begin provides', () => {
  it('accepts {begin@body.x}, {begin@query.x} and {begin@headers.x} in Webhook mode only', () => {
    const canvas = (mode: string) =>
      dsl({
        begin: { name: 'Begin', params: { mode }, downstream: ['Message:m'] },
        'Message:m': { name: 'Message', params: { content: ['{begin@body.id} {begin@query.q} {begin@headers.h}'] } },
      });
    expect(problems(canvas('Webhook'))).toEqual([]);
    expect(problems(canvas('task'))).toHaveLength(3);
  });
});
