/**
 * UserFillUp's reminders and escalation in the pure engine: bad params refused at their JSON
 * paths, a missing escalation target a warning like any branch, and the timer a pause waits for
 * next (reminders every `remind_after` up to `remind_max`, the escalation, the expiry).
 */
import { describe, expect, it } from 'vitest';
import { dsl } from '../../../test/helpers/canvasKit';
import { compileCanvas } from './compile';
import { nextFollowUp, type PauseFollowUp } from './pauseFollowUp';
import type { PauseState } from './state';

const form = (followUp: Record<string, unknown>) =>
  dsl({
    begin: { name: 'Begin', downstream: ['UserFillUp:f'] },
    'UserFillUp:f': { name: 'UserFillUp', params: { inputs: { ok: { type: 'boolean' } }, ...followUp }, downstream: ['Message:m'] },
    'Message:m': { name: 'Message', params: { content: ['done'] } },
    'Message:up': { name: 'Message', params: { content: ['escalated'] } },
  });

const problemsOf = (followUp: Record<string, unknown>) => {
  const r = compileCanvas(form(followUp));
  return r.ok ? [] : r.problems;
};
const at = (field: string) => `$.components["UserFillUp:f"].obj.params.${field}`;

describe('UserFillUp follow-up params', () => {
  it('accepts a webhook reminder and an escalation', () => {
    expect(
      problemsOf({ remind_after: 3600, remind_max: 2, remind_webhook: 'https://hooks.example.test/r', escalate_after: 86400, escalate_goto: ['Message:up'] }),
    ).toEqual([]);
  });

  it('refuses bad values, each at its JSON path', () => {
    expect(problemsOf({ remind_after: 'soon', remind_webhook: 'https://h.test' })).toEqual([expect.objectContaining({ path: at('remind_after') })]);
    expect(problemsOf({ remind_after: -5, remind_webhook: 'https://h.test' })).toEqual([
      expect.objectContaining({ path: at('remind_after'), message: expect.stringContaining('more than 0') }),
    ]);
    expect(problemsOf({ remind_after: 60, remind_webhook: 'ftp://h.test' })).toEqual([
      expect.objectContaining({ path: at('remind_webhook'), message: expect.stringContaining('http(s) URL') }),
    ]);
    expect(problemsOf({ remind_after: 60, remind_max: 1.5, remind_webhook: 'https://h.test' })).toEqual([expect.objectContaining({ path: at('remind_max') })]);
    expect(problemsOf({ remind_after: 60, remind_max: 1000, remind_webhook: 'https://h.test' })).toEqual([
      expect.objectContaining({ path: at('remind_max'), message: 'must be at most 100' }),
    ]);
    expect(problemsOf({ remind_after: 60, remind_email: { smtp_server: 'smtp.example.test', email: 'bot@example.test' } })).toEqual([
      expect.objectContaining({ path: at('remind_email.to_email') }),
    ]);
  });

  it('needs a way to send a reminder and a branch to escalate to', () => {
    expect(problemsOf({ remind_after: 60 })).toEqual([
      expect.objectContaining({ path: at('remind_after'), message: expect.stringContaining('remind_webhook') }),
    ]);
    expect(problemsOf({ escalate_after: 60 })).toEqual([expect.objectContaining({ path: at('escalate_goto') })]);
    expect(problemsOf({ escalate_goto: ['Message:up'] })).toEqual([expect.objectContaining({ path: at('escalate_after') })]);
  });

  it('warns of an escalation target that does not exist, and counts the branch as reachable', () => {
    const missing = compileCanvas(form({ escalate_after: 60, escalate_goto: ['Message:gone'] }));
    expect(missing.ok && missing.warnings).toContainEqual(
      expect.objectContaining({ path: `${at('escalate_goto')}[0]`, message: expect.stringContaining('Message:gone') }),
    );
    const reached = compileCanvas(form({ escalate_after: 60, escalate_goto: ['Message:up'] }));
    expect(reached.ok && reached.warnings).toEqual([]);
  });
});

describe('the next timer of a pause', () => {
  const pause = (reminded: number): PauseState => ({ componentIds: ['f'], form: {}, tips: '', seq: 3, timeoutS: null, since: 1_000_000, reminded });
  const plan: PauseFollowUp = {
    remind: { componentId: 'f', everyS: 10, max: 2, channel: 'webhook' },
    escalate: { afterS: 25, componentIds: ['f'], goto: ['up'] },
  };

  it('reminds every remind_after from the pause, then escalates once the reminders are spent', () => {
    expect(nextFollowUp(plan, pause(0), null, 1_000_000)).toEqual({ kind: 'remind', attempt: 1, atMs: 1_010_000 });
    expect(nextFollowUp(plan, pause(1), null, 1_010_500)).toEqual({ kind: 'remind', attempt: 2, atMs: 1_020_000 });
    expect(nextFollowUp(plan, pause(2), null, 1_020_500)).toEqual({ kind: 'escalate', atMs: 1_025_000 });
  });

  it('lets the form time out first when its timeout comes before the escalation', () => {
    expect(nextFollowUp(plan, pause(2), 22, 1_020_500)).toEqual({ kind: 'expire', atMs: 1_022_000 });
    expect(nextFollowUp({ ...plan, escalate: null }, pause(2), null, 1_020_500)).toBeNull();
  });
});
