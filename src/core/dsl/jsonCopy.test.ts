import { describe, expect, it } from 'vitest';
import { copyJson } from './jsonCopy';

const roundTrip = (v: unknown): unknown => {
  const text = JSON.stringify(v);
  return text === undefined ? undefined : JSON.parse(text);
};

/** The same value, as JSON text and as the shapes Object.keys and Object.is see. */
function expectSameAsRoundTrip(v: unknown): void {
  const ours = copyJson(v);
  const theirs = roundTrip(v);
  expect(JSON.stringify(ours)).toBe(JSON.stringify(theirs));
  expect(ours).toStrictEqual(theirs);
}

/** A pseudo-random JSON-ish value (seeded: the same cases every run). */
function randomValue(next: () => number, depth: number): unknown {
  const pick = Math.floor(next() * (depth > 3 ? 6 : 9));
  const leaves: Array<() => unknown> = [
    () => null,
    () => next() < 0.5,
    () => Math.floor(next() * 2000) - 1000 + (next() < 0.3 ? 0.25 : 0),
    () => 'text ' + Math.floor(next() * 100),
    () => undefined,
    () => [Number.NaN, Number.POSITIVE_INFINITY, -0][Math.floor(next() * 3)],
  ];
  if (pick < leaves.length) return leaves[pick]!();
  if (pick === 6) return Array.from({ length: Math.floor(next() * 4) }, () => randomValue(next, depth + 1));
  if (pick === 7) return new Date(Math.floor(next() * 1e12));
  const keys = ['a', 'b', '2', '10', 'b c', ''];
  return Object.fromEntries(keys.filter(() => next() < 0.5).map((k) => [k, randomValue(next, depth + 1)]));
}

describe('copyJson', () => {
  it('gives what a JSON round trip gives for the values JSON treats specially', () => {
    const cases: unknown[] = [
      null,
      0,
      -0,
      Number.NaN,
      Number.NEGATIVE_INFINITY,
      'é \u2028',
      true,
      [],
      {},
      [undefined, () => 1, Symbol('s'), Number.NaN, -0],
      { gone: undefined, fn: () => 1, sym: Symbol('s'), kept: null, nested: { deeper: [1, { x: undefined }] } },
      new Date(0),
      { when: new Date(86_400_000) },
      { custom: { toJSON: (key: string) => `for ${key}` } },
      [{ toJSON: (key: string) => `at ${key}` }],
      { boxed: [new Number(3), new String('s'), new Boolean(false)] },
      { '10': 'ten', '2': 'two', b: 1, a: 2 },
      new Map([['k', 1]]),
      // eslint-disable-next-line no-sparse-arrays
      [1, , 3],
    ];
    for (const v of cases) expectSameAsRoundTrip(v);
  });

  it('answers undefined where the round trip has no text to read back', () => {
    expect(copyJson(undefined)).toBeUndefined();
    expect(copyJson(() => 1)).toBeUndefined();
  });

  it('keeps a __proto__ key as an own property, as JSON.parse does, without touching the prototype', () => {
    const v = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as Record<string, unknown>;
    const c = copyJson(v);
    expect(Object.keys(c)).toEqual(['__proto__', 'a']);
    expect(Object.getPrototypeOf(c)).toBe(Object.prototype);
    expect((c as { polluted?: unknown }).polluted).toBeUndefined();
    expectSameAsRoundTrip(v);
  });

  it('throws on a BigInt, as JSON.stringify does', () => {
    expect(() => copyJson({ n: 1n })).toThrow(TypeError);
  });

  it('shares nothing mutable with the original', () => {
    const v = { list: [{ x: 1 }], obj: { y: [2] } };
    const c = copyJson(v);
    c.list[0]!.x = 9;
    c.obj.y.push(3);
    expect(v).toEqual({ list: [{ x: 1 }], obj: { y: [2] } });
  });

  it('matches the round trip on 2,000 seeded random values', () => {
    let seed = 42;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 2000; i++) expectSameAsRoundTrip(randomValue(next, 0));
  });
});
