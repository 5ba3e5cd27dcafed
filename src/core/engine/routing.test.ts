import { describe, expect, it } from 'vitest';
import { evaluateOperator, type SwitchOperator } from '../components/Switch';
import { compile } from '../../../test/helpers/canvasKit';
import { driver } from '../../../test/helpers/engineDriver';

describe('Switch operators (RAGFlow semantics)', () => {
  const cases: Array<[SwitchOperator, unknown, unknown, boolean]> = [
    ['contains', 'Hello World', 'world', true],
    ['contains', 'Hello', 'bye', false],
    ['not contains', 'Hello', 'bye', true],
    ['start with', 'Hello', 'HE', true],
    ['end with', 'Hello', 'LO', true],
    ['end with', 'Hello', 'x', false],
    ['empty', '', '', true],
    ['empty', 0, '', true],
    ['empty', [], '', true],
    ['empty', 'a', '', false],
    ['not empty', { a: 1 }, '', true],
    ['not empty', null, '', false],
    ['=', 'abc', 'abc', true],
    ['=', 3, 3, true],
    ['≠', 'abc', 'abd', true],
    ['>', '10', '9', true],
    ['>', 'b', 'a', true],
    ['<', 2.5, 3, true],
    ['≥', '5', '5.0', true],
    ['≤', 'abc', 'abd', true],
    ['≤', 7, 6, false],
  ];
  it.each(cases)('%s: %j vs %j → %s', (op, input, value, expected) => {
    expect(evaluateOperator(input, op, value)).toBe(expected);
  });

  it('refuses to order values that are neither numbers nor strings', () => {
    expect(() => evaluateOperator({ a: 1 }, '>', 'x')).toThrow(/cannot compare/);
  });
});

describe('Switch routing', () => {
  const canvas = (conditions: unknown[]) =>
    compile({
      begin: { name: 'Begin', params: { inputs: { age: { type: 'line' }, name: { type: 'line' } } }, downstream: ['Switch:s'] },
      'Switch:s': { name: 'Switch', params: { conditions, end_cpn_ids: ['Message:else'] }, downstream: ['Message:a', 'Message:b', 'Message:else'] },
      'Message:a': { name: 'Message', params: { content: ['a'] } },
      'Message:b': { name: 'Message', params: { content: ['b'] } },
      'Message:else': { name: 'Message', params: { content: ['else'] } },
    });
  const run = async (c: ReturnType<typeof canvas>, inputs: Record<string, unknown>) => (await driver({}).run(c, { inputs, query: '' })).state.path.at(-1);

  it('needs every item for "and" and any item for "or", and falls back to else', async () => {
    const c = canvas([
      {
        logical_operator: 'and',
        items: [
          { cpn_id: 'begin@age', operator: '≥', value: '18' },
          { cpn_id: 'begin@name', operator: 'start with', value: 'a' },
        ],
        to: ['Message:a'],
      },
      {
        logical_operator: 'or',
        items: [
          { cpn_id: 'begin@age', operator: '<', value: '5' },
          { cpn_id: 'begin@name', operator: 'contains', value: 'zed' },
        ],
        to: ['Message:b'],
      },
    ]);
    expect(await run(c, { age: 30, name: 'Ann' })).toBe('Message:a');
    expect(await run(c, { age: 30, name: 'Bob' })).toBe('Message:else');
    expect(await run(c, { age: 3, name: 'Bob' })).toBe('Message:b');
    expect(await run(c, { age: 40, name: 'Zedd' })).toBe('Message:b');
  });

  it('converts the value to a float when the variable is a number', async () => {
    const c = canvas([{ logical_operator: 'and', items: [{ cpn_id: 'begin@age', operator: '=', value: '7' }], to: ['Message:a'] }]);
    expect(await run(c, { age: 7 })).toBe('Message:a');
    expect(await run(c, { age: '7' })).toBe('Message:a');
    expect(await run(c, { age: 8 })).toBe('Message:else');
  });
});
