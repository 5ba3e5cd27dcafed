/**
 * ListOperations against RAGFlow's agent/component/list_operations.py: every row was run through
 * RAGFlow's own class (its Python, with the canvas stubbed to the row's values) and its outputs
 * or its error written here. JSON has no 1.0: Python floats that are whole read as ints.
 */
import { describe, expect, it } from 'vitest';
import { runInline } from '../../../test/helpers/componentTable';
import { ListOperations } from './ListOperations';
import type { AnyComponentDef } from './registry';

interface Row {
  title: string;
  params: Record<string, unknown>;
  /** The list the component reads (at `begin@xs`, the query unless `params` names another). */
  xs?: unknown;
  result?: unknown;
  first?: unknown;
  last?: unknown;
  error?: string;
  /** Fails as RAGFlow does, with our own wording of a template syntax error. */
  fails?: boolean;
}

/** The lists most rows read (each row runs on its own copy). */
const NUMS = [3, 1, 2, 5, 4];
const MIXED = ['apple', 'banana', 'cherry', 12, null, true, { a: 'b' }, ['x'], 'pineapple'];
const PEOPLE = [
  { name: 'bo', age: 30 },
  { name: 'al', age: 25 },
  { name: 'cy', age: 30 },
  { name: 'di', age: 20 },
];

const rows: Row[] = [
  { title: 'nth n=1 strict=False', params: { operations: 'nth', n: 1, strict: false }, xs: NUMS, result: [3], first: 3, last: 3 },
  { title: 'nth n=2 strict=False', params: { operations: 'nth', n: 2, strict: false }, xs: NUMS, result: [1], first: 1, last: 1 },
  { title: 'nth n=-1 strict=False', params: { operations: 'nth', n: -1, strict: false }, xs: NUMS, result: [4], first: 4, last: 4 },
  { title: 'nth n=0 strict=False', params: { operations: 'nth', n: 0, strict: false }, xs: NUMS, result: [], first: null, last: null },
  { title: 'nth n=9 strict=False', params: { operations: 'nth', n: 9, strict: false }, xs: NUMS, result: [], first: null, last: null },
  { title: 'nth n=-9 strict=False', params: { operations: 'nth', n: -9, strict: false }, xs: NUMS, result: [], first: null, last: null },
  {
    title: 'nth n=0 strict=True',
    params: { operations: 'nth', n: 0, strict: true },
    xs: NUMS,
    error: 'nth requires n to be within the valid range in strict mode, got 0.',
  },
  {
    title: 'nth n=9 strict=True',
    params: { operations: 'nth', n: 9, strict: true },
    xs: NUMS,
    error: 'nth requires n to be within the valid range in strict mode, got 9.',
  },
  {
    title: 'nth n=-9 strict=True',
    params: { operations: 'nth', n: -9, strict: true },
    xs: NUMS,
    error: 'nth requires n to be within the valid range in strict mode, got -9.',
  },
  { title: 'head n=2 strict=False', params: { operations: 'head', n: 2, strict: false }, xs: NUMS, result: [3, 1], first: 3, last: 1 },
  { title: 'head n=0 strict=False', params: { operations: 'head', n: 0, strict: false }, xs: NUMS, result: [], first: null, last: null },
  { title: 'head n=10 strict=False', params: { operations: 'head', n: 10, strict: false }, xs: NUMS, result: [3, 1, 2, 5, 4], first: 3, last: 4 },
  { title: 'head n=-1 strict=False', params: { operations: 'head', n: -1, strict: false }, xs: NUMS, result: [], first: null, last: null },
  {
    title: 'head n=0 strict=True',
    params: { operations: 'head', n: 0, strict: true },
    xs: NUMS,
    error: 'head requires n to be within the valid range in strict mode, got 0.',
  },
  {
    title: 'head n=10 strict=True',
    params: { operations: 'head', n: 10, strict: true },
    xs: NUMS,
    error: 'head requires n to be within the valid range in strict mode, got 10.',
  },
  { title: 'head n=5 strict=True', params: { operations: 'head', n: 5, strict: true }, xs: NUMS, result: [3, 1, 2, 5, 4], first: 3, last: 4 },
  { title: 'tail n=2 strict=False', params: { operations: 'tail', n: 2, strict: false }, xs: NUMS, result: [5, 4], first: 5, last: 4 },
  { title: 'tail n=0 strict=False', params: { operations: 'tail', n: 0, strict: false }, xs: NUMS, result: [], first: null, last: null },
  { title: 'tail n=10 strict=False', params: { operations: 'tail', n: 10, strict: false }, xs: NUMS, result: [3, 1, 2, 5, 4], first: 3, last: 4 },
  {
    title: 'tail n=10 strict=True',
    params: { operations: 'tail', n: 10, strict: true },
    xs: NUMS,
    error: 'tail requires n to be within the valid range in strict mode, got 10.',
  },
  { title: 'topN n=3 strict=False', params: { operations: 'topN', n: 3, strict: false }, xs: NUMS, result: [3, 1, 2], first: 3, last: 2 },
  { title: 'TOPN n=1 strict=False', params: { operations: 'TOPN', n: 1, strict: false }, xs: NUMS, result: [3], first: 3, last: 3 },
  { title: '(empty) n=1 strict=False', params: { operations: '', n: 1, strict: false }, xs: NUMS, result: [3], first: 3, last: 3 },
  { title: "nth n='2' strict=False", params: { operations: 'nth', n: '2', strict: false }, xs: NUMS, result: [1], first: 1, last: 1 },
  { title: "nth n='abc' strict=False", params: { operations: 'nth', n: 'abc', strict: false }, xs: NUMS, result: [], first: null, last: null },
  { title: 'head n=2.7 strict=False', params: { operations: 'head', n: 2.7, strict: false }, xs: NUMS, result: [3, 1], first: 3, last: 1 },
  { title: "nth n=1 strict='yes'", params: { operations: 'nth', n: 1, strict: 'yes' }, xs: NUMS, result: [3], first: 3, last: 3 },
  { title: "nth n=9 strict='off'", params: { operations: 'nth', n: 9, strict: 'off' }, xs: NUMS, result: [], first: null, last: null },
  {
    title: "filter = 'banana'",
    params: { operations: 'filter', filter: { operator: '=', value: 'banana' } },
    xs: MIXED,
    result: ['banana'],
    first: 'banana',
    last: 'banana',
  },
  {
    title: "filter ≠ 'banana'",
    params: { operations: 'filter', filter: { operator: '≠', value: 'banana' } },
    xs: MIXED,
    result: ['apple', 'cherry', 12, null, true, { a: 'b' }, ['x'], 'pineapple'],
    first: 'apple',
    last: 'pineapple',
  },
  {
    title: "filter contains 'apple'",
    params: { operations: 'filter', filter: { operator: 'contains', value: 'apple' } },
    xs: MIXED,
    result: ['apple', 'pineapple'],
    first: 'apple',
    last: 'pineapple',
  },
  {
    title: "filter start with 'b'",
    params: { operations: 'filter', filter: { operator: 'start with', value: 'b' } },
    xs: MIXED,
    result: ['banana'],
    first: 'banana',
    last: 'banana',
  },
  {
    title: "filter end with 'e'",
    params: { operations: 'filter', filter: { operator: 'end with', value: 'e' } },
    xs: MIXED,
    result: ['apple', true, 'pineapple'],
    first: 'apple',
    last: 'pineapple',
  },
  { title: "filter = '12'", params: { operations: 'filter', filter: { operator: '=', value: '12' } }, xs: MIXED, result: [12], first: 12, last: 12 },
  { title: "filter = 'True'", params: { operations: 'filter', filter: { operator: '=', value: 'True' } }, xs: MIXED, result: [true], first: true, last: true },
  { title: "filter = ''", params: { operations: 'filter', filter: { operator: '=', value: '' } }, xs: MIXED, result: [null], first: null, last: null },
  {
    title: 'filter contains "\'a\'"',
    params: { operations: 'filter', filter: { operator: 'contains', value: "'a'" } },
    xs: MIXED,
    result: [{ a: 'b' }],
    first: { a: 'b' },
    last: { a: 'b' },
  },
  {
    title: "filter = \"{'a': 'b'}\"",
    params: { operations: 'filter', filter: { operator: '=', value: "{'a': 'b'}" } },
    xs: MIXED,
    result: [{ a: 'b' }],
    first: { a: 'b' },
    last: { a: 'b' },
  },
  {
    title: 'filter = "[\'x\']"',
    params: { operations: 'filter', filter: { operator: '=', value: "['x']" } },
    xs: MIXED,
    result: [['x']],
    first: ['x'],
    last: ['x'],
  },
  {
    title: "filter unknown 'a'",
    params: { operations: 'filter', filter: { operator: 'unknown', value: 'a' } },
    xs: MIXED,
    result: [],
    first: null,
    last: null,
  },
  { title: 'filter = 12', params: { operations: 'filter', filter: { operator: '=', value: 12 } }, xs: MIXED, result: [], first: null, last: null },
  {
    title: 'filter contains 12',
    params: { operations: 'filter', filter: { operator: 'contains', value: 12 } },
    xs: MIXED,
    error: "'in <string>' requires string as left operand, not int",
  },
  { title: 'sort ints asc', params: { operations: 'sort' }, xs: NUMS, result: [1, 2, 3, 4, 5], first: 1, last: 5 },
  { title: 'sort ints desc', params: { operations: 'sort', sort_method: 'desc' }, xs: NUMS, result: [5, 4, 3, 2, 1], first: 5, last: 1 },
  { title: 'sort strings', params: { operations: 'sort' }, xs: ['b', 'B', 'a', 'é', 'aa', ''], result: ['', 'B', 'a', 'aa', 'b', 'é'], first: '', last: 'é' },
  {
    title: 'sort dicts by age',
    params: { operations: 'sort', sort_by: 'age' },
    xs: PEOPLE,
    result: [
      { name: 'di', age: 20 },
      { name: 'al', age: 25 },
      { name: 'bo', age: 30 },
      { name: 'cy', age: 30 },
    ],
    first: { name: 'di', age: 20 },
    last: { name: 'cy', age: 30 },
  },
  {
    title: 'sort dicts by age desc (stable)',
    params: { operations: 'sort', sort_by: 'age', sort_method: 'desc' },
    xs: PEOPLE,
    result: [
      { name: 'bo', age: 30 },
      { name: 'cy', age: 30 },
      { name: 'al', age: 25 },
      { name: 'di', age: 20 },
    ],
    first: { name: 'bo', age: 30 },
    last: { name: 'di', age: 20 },
  },
  {
    title: 'sort dicts by age, name desc',
    params: { operations: 'sort', sort_by: ' age , name ', sort_method: 'desc' },
    xs: PEOPLE,
    result: [
      { name: 'cy', age: 30 },
      { name: 'bo', age: 30 },
      { name: 'al', age: 25 },
      { name: 'di', age: 20 },
    ],
    first: { name: 'cy', age: 30 },
    last: { name: 'di', age: 20 },
  },
  {
    title: 'sort dicts by all items',
    params: { operations: 'sort' },
    xs: PEOPLE,
    result: [
      { name: 'di', age: 20 },
      { name: 'al', age: 25 },
      { name: 'bo', age: 30 },
      { name: 'cy', age: 30 },
    ],
    first: { name: 'di', age: 20 },
    last: { name: 'cy', age: 30 },
  },
  {
    title: 'sort dicts by a missing key',
    params: { operations: 'sort', sort_by: 'nope' },
    xs: [{ a: 1 }],
    result: [{ a: 1 }],
    first: { a: 1 },
    last: { a: 1 },
  },
  {
    title: 'sort dicts by a key some lack',
    params: { operations: 'sort', sort_by: 'age' },
    xs: [{ age: 2 }, { x: 1 }],
    error: "'<' not supported between instances of 'NoneType' and 'int'",
  },
  { title: 'sort mixed types', params: { operations: 'sort' }, xs: [1, 'a'], error: "'<' not supported between instances of 'str' and 'int'" },
  { title: 'sort bools and numbers', params: { operations: 'sort' }, xs: [2, true, 0, false, 1.5], result: [0, false, true, 1.5, 2], first: 0, last: 2 },
  { title: 'sort lists', params: { operations: 'sort' }, xs: [[2, 1], [1, 5], [1], []], result: [[], [1], [1, 5], [2, 1]], first: [], last: [2, 1] },
  { title: 'sort empty', params: { operations: 'sort' }, xs: [], result: [], first: null, last: null },
  {
    title: 'drop_duplicates',
    params: { operations: 'drop_duplicates' },
    xs: [1, true, '1', { a: 1, b: 2 }, { b: 2, a: 1 }, [1, 2], [1, 2], null, null, 0, false],
    result: [1, '1', { a: 1, b: 2 }, [1, 2], null, 0],
    first: 1,
    last: 0,
  },
  { title: 'not a list', params: { operations: 'nth', n: 1 }, xs: 'abc', error: 'The input of List Operations should be an array.' },
  { title: 'a dict is not a list', params: { operations: 'nth', n: 1 }, xs: { a: 1 }, error: 'The input of List Operations should be an array.' },
  { title: 'empty list head', params: { operations: 'head', n: 2 }, xs: [], result: [], first: null, last: null },
  { title: 'empty query', params: { query: '', operations: 'nth' }, error: 'query does not support empty value.' },
  {
    title: 'unknown operation',
    params: { operations: 'shuffle' },
    xs: NUMS,
    error: "Support operations shuffle is not supported, it should be in ['nth', 'head', 'tail', 'filter', 'sort', 'drop_duplicates']",
  },
];

describe('ListOperations matches RAGFlow on the same inputs', () => {
  it.each(rows)('$title', (row) => {
    const out = runInline(
      ListOperations as unknown as AnyComponentDef,
      { query: 'begin@xs', ...row.params },
      row.xs === undefined ? {} : { 'begin@xs': structuredClone(row.xs) },
    );
    if (row.fails) expect(out).toHaveProperty('error');
    else if (row.error !== undefined) expect(out).toEqual({ error: row.error });
    else expect(out).toEqual({ outputs: { result: row.result, first: row.first, last: row.last } });
  });
});
