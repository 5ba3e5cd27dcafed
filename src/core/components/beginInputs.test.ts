import { describe, expect, it } from 'vitest';
import { beginSubmission, checkBeginTurn, type BeginForm } from './beginInputs';
import type { FormFieldSpec } from './definition';

const field = (type: string, extra: Partial<FormFieldSpec> = {}): FormFieldSpec => ({ type, optional: false, options: [], ...extra });

const form: BeginForm = {
  mode: 'conversational',
  inputs: {
    topic: field('line', { name: 'Topic' }),
    notes: field('paragraph', { optional: true }),
    tone: field('options', { options: ['formal', 'casual'] }),
    count: field('integer', { optional: true }),
  },
};
const good = { topic: 'tides', tone: 'casual' };

/** The fields a check refuses, with their messages (empty when it passes). */
function problems(begin: BeginForm, inputs: Record<string, unknown> | null, firstTurn = true, query: unknown = ''): Record<string, string> {
  const check = checkBeginTurn(begin, { inputs, query, firstTurn });
  return check.ok ? {} : Object.fromEntries(check.problems.map((p) => [p.field, p.message]));
}

describe('Begin inputs on a session’s first turn', () => {
  it.each([
    ['all required fields given', good, {}],
    ['RAGFlow’s {value} objects', { topic: { type: 'line', value: 'tides' }, tone: { value: 'formal' } }, {}],
    ['an optional field left out or blank', { ...good, notes: '', count: null }, {}],
    ['keys the form does not declare (passed on)', { ...good, extra: 1 }, {}],
    ['no inputs at all', null, { topic: 'is required', tone: 'is required' }],
    ['a missing required field', { tone: 'casual' }, { topic: 'is required' }],
    ['a blank required field', { ...good, topic: '' }, { topic: 'is required' }],
    ['a required field of spaces only', { ...good, topic: { value: '   ' } }, { topic: 'is required' }],
    ['a number for a line', { ...good, topic: 42 }, { topic: 'must be text, got 42' }],
    ['a number for a paragraph', { ...good, notes: 7 }, { notes: 'must be text, got 7' }],
    ['a boolean for a line', { ...good, topic: true }, { topic: 'must be text, got true' }],
    ['a value that is not an option', { ...good, tone: 'angry' }, { tone: 'must be one of "formal", "casual", got "angry"' }],
    ['text for an integer', { ...good, count: 'many' }, { count: 'must be a number, got "many"' }],
  ])('%s', (_, inputs, expected) => {
    expect(problems(form, inputs)).toEqual(expected);
  });
});

describe('Begin inputs after the first turn', () => {
  it('needs none: RAGFlow asks for Begin’s form when a session starts', () => {
    expect(problems(form, null, false, 'next question')).toEqual({});
    expect(problems(form, {}, false)).toEqual({});
  });

  it('still checks the types of what is sent, without requiring the other fields', () => {
    expect(problems(form, { count: 3 }, false)).toEqual({});
    expect(problems(form, { topic: 5 }, false)).toEqual({ topic: 'must be text, got 5' });
  });
});

describe('canvases that take no form', () => {
  it('passes a Begin without inputs, whatever is sent', () => {
    expect(problems({ mode: 'conversational' }, null)).toEqual({});
    expect(problems({ inputs: {} }, { anything: 1 })).toEqual({});
  });

  it('passes a webhook-mode Begin: the request is its input', () => {
    expect(problems({ ...form, mode: 'Webhook' }, null)).toEqual({});
  });
});

describe('the query as Begin’s values (no inputs sent)', () => {
  const single: BeginForm = { inputs: { review: field('paragraph') } };

  it('fills a form’s only field', () => {
    expect(beginSubmission(single.inputs!, null, 'It broke')).toEqual({ review: 'It broke' });
    expect(problems(single, null, true, 'It broke')).toEqual({});
    expect(problems(single, null, true, '')).toEqual({ review: 'is required' });
  });

  it('maps an object query’s keys that are fields, and nothing for a form of several fields', () => {
    expect(beginSubmission(form.inputs!, null, { topic: 'tides', other: 1 })).toEqual({ topic: 'tides' });
    expect(beginSubmission(form.inputs!, null, 'plain text')).toEqual({});
  });

  it('is not used when inputs are sent', () => {
    expect(beginSubmission(single.inputs!, { review: 'sent' }, 'query')).toEqual({ review: 'sent' });
  });
});
