/**
 * DataOperations against RAGFlow's agent/component/data_operations.py: every row was run through
 * RAGFlow's own class (its Python, with the canvas stubbed to the row's values) and its result or
 * its error written here. One deliberate difference: RAGFlow's reference pattern also swallows
 * the spaces before a `{ref}` in an update's value (`hi {begin@who}` → `hiBob`); ours keeps them,
 * as every other template here does, so the rows avoid that case.
 */
import { describe, expect, it } from 'vitest';
import { runInline } from '../../../test/helpers/componentTable';
import { DataOperations } from './DataOperations';
import type { AnyComponentDef } from './registry';

interface Row {
  title: string;
  params: Record<string, unknown>;
  values: Record<string, unknown>;
  result?: unknown;
  error?: string;
  /** Fails as RAGFlow does, with our own wording of a template syntax error. */
  fails?: boolean;
}

/** The values most rows run against (each row runs on its own copy). */
const RECORDS = {
  'begin@a': { name: 'Ann', age: '31', tags: "['x', 'y']", meta: "{'k': (1, 2)}" },
  'begin@b': [{ name: 'Bob', age: '40' }, 'skip', 3, { name: 'Cy', city: 'Oslo' }],
  'begin@n': null,
  'begin@s': 'text',
  'begin@who': 'Bob',
};
const TABLE = {
  'begin@rows': [{ name: 'Bob', age: 40, city: 'Oslo' }, { name: 'Ann', age: 31, city: 'Bergen' }, { name: 'Bobby', age: null }, { city: 'Oslo' }],
  'begin@who': 'Bob',
};

const rows: Row[] = [
  {
    title: 'select_keys',
    params: { query: ['begin@a', 'begin@b'], operations: 'select_keys', select_keys: ['name', 'city'] },
    values: RECORDS,
    result: [{ name: 'Ann' }, { name: 'Bob' }, { name: 'Cy', city: 'Oslo' }],
  },
  { title: 'select_keys none', params: { query: ['begin@a'], operations: 'select_keys' }, values: RECORDS, result: [{}] },
  { title: 'one reference as text', params: { query: 'begin@a', operations: 'select_keys', select_keys: ['age'] }, values: RECORDS, result: [{ age: '31' }] },
  {
    title: 'skips None and text',
    params: { query: ['begin@n', 'begin@s', 'begin@b'], operations: 'select_keys', select_keys: ['name'] },
    values: RECORDS,
    result: [{ name: 'Bob' }, { name: 'Cy' }],
  },
  {
    title: 'literal_eval',
    params: { query: ['begin@v'], operations: 'literal_eval' },
    values: {
      'begin@v': {
        d: "{'a': 1, 'b': [True, None]}",
        l: '[1, 2.5, "x"]',
        t: '(1, 2)',
        one: '(1)',
        q: "'quoted'",
        dq: '"dq"',
        T: 'True',
        t2: 'true',
        none: 'None',
        i: '42',
        f: '3.14',
        neg: '-1',
        bad: '1.2.3',
        set: '{1, 2, 1}',
        s: 'abc',
        sp: '  12',
        tab: '\t7',
        under: '1_000',
        hex: '0x1f',
        nest: { inner: ['{"k": "v"}', '[]'] },
        num: 5,
        esc: "'a\\nb'",
        cat: "'a' 'b'",
        brok: '{oops',
        empty: '',
        dot: '.5',
        dd: '1.',
        uni: '{"é": "ü"}',
        tr: '[1, 2,]',
        lead0: '007',
        dec: '1e3',
        cplx: '(1+2j)',
      },
    },
    result: [
      {
        d: { a: 1, b: [true, null] },
        l: [1, 2.5, 'x'],
        t: [1, 2],
        one: 1,
        q: 'quoted',
        dq: 'dq',
        T: true,
        t2: 'true',
        none: null,
        i: 42,
        f: 3.14,
        neg: '-1',
        bad: '1.2.3',
        set: [1, 2],
        s: 'abc',
        sp: 12,
        tab: 7,
        under: '1_000',
        hex: '0x1f',
        nest: { inner: [{ k: 'v' }, []] },
        num: 5,
        esc: 'a\nb',
        cat: 'ab',
        brok: '{oops',
        empty: '',
        dot: 0.5,
        dd: 1.0,
        uni: { é: 'ü' },
        tr: [1, 2],
        lead0: '007',
        dec: '1e3',
        cplx: '(1+2j)',
      },
    ],
  },
  {
    title: 'combine',
    params: { query: ['begin@xs'], operations: 'combine' },
    values: {
      'begin@xs': [
        { a: 1, b: [1], c: 'x' },
        { a: 2, b: 3, c: [7, 8] },
        { a: [4, 5], d: null },
      ],
    },
    result: { a: [1, 2, 4, 5], b: [1, 3], c: ['x', 7, 8], d: null },
  },
  { title: 'combine nothing', params: { query: ['begin@n'], operations: 'combine' }, values: RECORDS, result: {} },
  {
    title: 'filter_values [{"key": "name", "operator": "=", "value": "Bob"}]',
    params: { query: ['begin@rows'], operations: 'filter_values', filter_values: [{ key: 'name', operator: '=', value: 'Bob' }] },
    values: TABLE,
    result: [{ name: 'Bob', age: 40, city: 'Oslo' }],
  },
  {
    title: 'filter_values [{"key": "name", "operator": "≠", "value": "Bob"}]',
    params: { query: ['begin@rows'], operations: 'filter_values', filter_values: [{ key: 'name', operator: '≠', value: 'Bob' }] },
    values: TABLE,
    result: [
      { name: 'Ann', age: 31, city: 'Bergen' },
      { name: 'Bobby', age: null },
    ],
  },
  {
    title: 'filter_values [{"key": "name", "operator": "contains", "value": "ob"}]',
    params: { query: ['begin@rows'], operations: 'filter_values', filter_values: [{ key: 'name', operator: 'contains', value: 'ob' }] },
    values: TABLE,
    result: [
      { name: 'Bob', age: 40, city: 'Oslo' },
      { name: 'Bobby', age: null },
    ],
  },
  {
    title: 'filter_values [{"key": "name", "operator": "start with", "value": "B"}, {"key": "city", "operator": "end with", "value": "lo"}]',
    params: {
      query: ['begin@rows'],
      operations: 'filter_values',
      filter_values: [
        { key: 'name', operator: 'start with', value: 'B' },
        { key: 'city', operator: 'end with', value: 'lo' },
      ],
    },
    values: TABLE,
    result: [{ name: 'Bob', age: 40, city: 'Oslo' }],
  },
  {
    title: 'filter_values [{"key": "name", "value": "Bob"}]',
    params: { query: ['begin@rows'], operations: 'filter_values', filter_values: [{ key: 'name', value: 'Bob' }] },
    values: TABLE,
    result: [],
  },
  {
    title: 'filter_values [{"key": "age", "operator": "=", "value": 40}]',
    params: { query: ['begin@rows'], operations: 'filter_values', filter_values: [{ key: 'age', operator: '=', value: 40 }] },
    values: TABLE,
    result: [{ name: 'Bob', age: 40, city: 'Oslo' }],
  },
  {
    title: 'filter_values [{"key": "age", "operator": "=", "value": ""}]',
    params: { query: ['begin@rows'], operations: 'filter_values', filter_values: [{ key: 'age', operator: '=', value: '' }] },
    values: TABLE,
    result: [{ name: 'Bobby', age: null }],
  },
  {
    title: 'filter_values [{"key": "name", "operator": "=", "value": "{begin@who}"}]',
    params: { query: ['begin@rows'], operations: 'filter_values', filter_values: [{ key: 'name', operator: '=', value: '{begin@who}' }] },
    values: TABLE,
    result: [{ name: 'Bob', age: 40, city: 'Oslo' }],
  },
  {
    title: 'filter_values [{"key": "name", "operator": "=", "value": null}]',
    params: { query: ['begin@rows'], operations: 'filter_values', filter_values: [{ key: 'name', operator: '=', value: null }] },
    values: TABLE,
    result: [],
  },
  {
    title: 'filter_values []',
    params: { query: ['begin@rows'], operations: 'filter_values', filter_values: [] },
    values: TABLE,
    result: [{ name: 'Bob', age: 40, city: 'Oslo' }, { name: 'Ann', age: 31, city: 'Bergen' }, { name: 'Bobby', age: null }, { city: 'Oslo' }],
  },
  {
    title: 'filter_values [{"key": "nope", "operator": "≠", "value": "x"}]',
    params: { query: ['begin@rows'], operations: 'filter_values', filter_values: [{ key: 'nope', operator: '≠', value: 'x' }] },
    values: TABLE,
    result: [],
  },
  {
    title: 'filter_values [{"key": "city", "operator": "=", "value": "{begin@missing_nothing}"}]',
    params: { query: ['begin@rows'], operations: 'filter_values', filter_values: [{ key: 'city', operator: '=', value: '{begin@missing_nothing}' }] },
    values: TABLE,
    result: [],
  },
  {
    title: 'append_or_update',
    params: {
      query: ['begin@rows'],
      operations: 'append_or_update',
      updates: [{ key: ' city ', value: 'Paris' }, { key: 'greeting', value: 'hi:{begin@who}' }, { key: '', value: 'x' }, 'junk', { key: 'empty', value: '' }],
    },
    values: TABLE,
    result: [
      { name: 'Bob', age: 40, city: 'Paris', greeting: 'hi:Bob', empty: '' },
      { name: 'Ann', age: 31, city: 'Paris', greeting: 'hi:Bob', empty: '' },
      { name: 'Bobby', age: null, city: 'Paris', greeting: 'hi:Bob', empty: '' },
      { city: 'Paris', greeting: 'hi:Bob', empty: '' },
    ],
  },
  {
    title: 'append_or_update with a number',
    params: { query: ['begin@rows'], operations: 'append_or_update', updates: [{ key: 'n', value: 3 }] },
    values: TABLE,
    error: "expected string or bytes-like object, got 'int'",
  },
  {
    title: 'remove_keys',
    params: { query: ['begin@rows'], operations: 'remove_keys', remove_keys: ['age', 'nope', 3] },
    values: TABLE,
    result: [{ name: 'Bob', city: 'Oslo' }, { name: 'Ann', city: 'Bergen' }, { name: 'Bobby' }, { city: 'Oslo' }],
  },
  {
    title: 'rename_keys',
    params: {
      query: ['begin@rows'],
      operations: 'rename_keys',
      rename_keys: [{ old_key: ' name ', new_key: 'who' }, { old_key: 'city', new_key: 'city' }, { old_key: 'nope', new_key: 'x' }, { old_key: 'age' }, 'junk'],
    },
    values: TABLE,
    result: [{ age: 40, city: 'Oslo', who: 'Bob' }, { age: 31, city: 'Bergen', who: 'Ann' }, { age: null, who: 'Bobby' }, { city: 'Oslo' }],
  },
  {
    title: 'unknown operation',
    params: { query: ['begin@rows'], operations: 'explode' },
    values: TABLE,
    error:
      "Support operations explode is not supported, it should be in ['select_keys', 'literal_eval', 'combine', 'filter_values', 'append_or_update', 'remove_keys', 'rename_keys']",
  },
];

describe('DataOperations matches RAGFlow on the same inputs', () => {
  it.each(rows)('$title', (row) => {
    const out = runInline(DataOperations as unknown as AnyComponentDef, row.params, structuredClone(row.values));
    if (row.fails) expect(out).toHaveProperty('error');
    else if (row.error !== undefined) expect(out).toEqual({ error: row.error });
    else expect(out).toEqual({ outputs: { result: row.result } });
  });
});
