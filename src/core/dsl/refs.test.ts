import { describe, expect, it } from 'vitest';
import { findRefs, getPath, isWholeRef, parseRef, renderTemplate, resolveParam, setPath, splitTemplate } from './refs';

describe('variable references', () => {
  it('finds component, sys and env references with single or double braces and spaces', () => {
    const refs = findRefs('a {begin@q} b {{sys.query}} c {{ env.name }} d { Agent:X@structured.items.0.title }');
    expect(refs.map((r) => r.ref.expr)).toEqual(['begin@q', 'sys.query', 'env.name', 'Agent:X@structured.items.0.title']);
  });

  it('parses bare and braced references, and rejects text that is not one', () => {
    expect(parseRef('begin@customer_review')).toMatchObject({ kind: 'component', componentId: 'begin', output: 'customer_review', path: [] });
    expect(parseRef('{Agent:X@structured.items.0}')).toMatchObject({ componentId: 'Agent:X', output: 'structured', path: ['items', '0'] });
    expect(parseRef('sys.query')).toMatchObject({ kind: 'global', name: 'sys.query' });
    expect(parseRef('hello world')).toBeNull();
    expect(parseRef('{input}')).toBeNull();
  });

  it('walks objects, arrays (also from the end) and JSON strings', () => {
    const value = { items: [{ title: 'Dune' }, { title: 'Emma' }], raw: '{"a": {"b": 7}}' };
    expect(getPath(value, ['items', '1', 'title'])).toBe('Emma');
    expect(getPath(value, ['items', '-1', 'title'])).toBe('Emma');
    expect(getPath(value, ['raw', 'a', 'b'])).toBe(7);
    expect(getPath(value, ['items', 'x'])).toBeUndefined();
    expect(getPath(null, ['a'])).toBeUndefined();
  });

  it('renders values into text: strings as-is, nothing as "", objects as Python-style JSON', () => {
    const values: Record<string, unknown> = { 'a@x': 'hi', 'a@n': null, 'a@o': { k: [1, 'two'] } };
    const text = renderTemplate('{a@x}|{a@n}|{a@o}', (r) => values[r.expr]);
    expect(text).toBe('hi||{"k": [1, "two"]}');
  });

  it('keeps the type of a param that is exactly one reference', () => {
    expect(isWholeRef('{a@o}')).toBe(true);
    expect(resolveParam('{a@o}', () => ({ k: 1 }))).toEqual({ k: 1 });
    expect(resolveParam('x {a@o}', () => ({ k: 1 }))).toBe('x {"k": 1}');
  });

  it('writes nested values without touching the original', () => {
    const original = { a: { b: 1 } };
    expect(setPath(original, ['a', 'c'], 2)).toEqual({ a: { b: 1, c: 2 } });
    expect(original).toEqual({ a: { b: 1 } });
  });

  it('splits a template into text and references for streaming', () => {
    expect(splitTemplate('Hi {sys.query}!')).toEqual([
      { kind: 'text', text: 'Hi ' },
      { kind: 'ref', ref: expect.objectContaining({ expr: 'sys.query' }) },
      { kind: 'text', text: '!' },
    ]);
  });
});

describe('what a run carries of its DSL', () => {
  it('drops editor layout but keeps node names, and redacts credential params', async () => {
    const { redactSecrets, slimForRun } = await import('./secrets');
    const dsl = {
      components: { 'Tavily:1': { obj: { component_name: 'TavilySearch', params: { api_key: 'tvly-secret', query: '{sys.query}' } } } },
      graph: { nodes: [{ id: 'Tavily:1', position: { x: 1 }, data: { name: 'Search', form: { big: 'x'.repeat(1000) } } }], edges: [{ id: 'e' }] },
    };
    const run = redactSecrets(slimForRun(dsl));
    expect(run.graph).toEqual({ nodes: [{ id: 'Tavily:1', data: { name: 'Search' } }] });
    expect(JSON.stringify(run)).not.toContain('tvly-secret');
    expect((run.components as Record<string, { obj: { params: Record<string, unknown> } }>)['Tavily:1']!.obj.params).toEqual({
      api_key: '__secret__',
      query: '{sys.query}',
    });
  });

  it('keeps credentials in HTTP headers (object or JSON text) out of a run, other headers as they are', async () => {
    const { redactSecrets } = await import('./secrets');
    const dsl = {
      components: {
        'Invoke:a': { obj: { component_name: 'Invoke', params: { headers: { Authorization: 'Bearer s3cret', Accept: 'application/json' } } } },
        'Invoke:b': { obj: { component_name: 'Invoke', params: { headers: '{"X-Api-Key": "k3y", "Content-Type": "text/plain"}' } } },
      },
    };
    const run = redactSecrets(dsl);
    const text = JSON.stringify(run);
    expect(text).not.toContain('s3cret');
    expect(text).not.toContain('k3y');
    expect(run.components['Invoke:a'].obj.params.headers).toEqual({ Authorization: '__secret__', Accept: 'application/json' });
    expect(JSON.parse(run.components['Invoke:b'].obj.params.headers as string)).toEqual({ 'X-Api-Key': '__secret__', 'Content-Type': 'text/plain' });
  });
});
