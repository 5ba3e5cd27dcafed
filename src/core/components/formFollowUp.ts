/**
 * What a UserFillUp does while nobody answers (issue 35, item 5): `remind_after` seconds, a
 * reminder through a webhook (`remind_webhook`, a POST of JSON) or by email over SMTP
 * (`remind_email`, the Email tool's settings), repeated every `remind_after` at most
 * `remind_max` times; `escalate_after` seconds, the run takes the `escalate_goto` branch, as the
 * timeout's exception branch does. The workflow keeps both as durable timers
 * (workflows/pauseFollowUp.ts); the params are checked here, each problem at its JSON path.
 */
import { z } from 'zod';
import { idList, nonNegInt, num, str } from './common';
import { lazySchema } from '../dsl/lazySchema';

/** Seconds, null when unset (`""`, null); a positive number otherwise. */
const seconds = () =>
  z.preprocess(
    (v) => (v === undefined || v === null || v === '' ? null : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v),
    z.number('must be a number of seconds').positive('must be more than 0 seconds').nullable(),
  );

/** The Email tool's SMTP settings (src/core/components/Email.ts), for reminders by email. The password stays out of workflow history. */
const RemindEmail = z.looseObject({
  smtp_server: z.string().min(1, 'must name the SMTP server'),
  smtp_port: num(465).refine((n) => Number.isInteger(n) && n > 0 && n < 65536, 'must be a port number (465 for SSL/TLS, 587 or 25 for STARTTLS)'),
  email: z.string().min(1, 'must be the sender address'),
  smtp_username: str(''),
  password: str(''),
  sender_name: str(''),
  to_email: z.string().min(1, 'must name the recipient(s), separated by commas'),
  subject: str('A form is waiting for your answer'),
});

const isHttpUrl = (v: string): boolean => {
  try {
    const u = new URL(v);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
};

/** At most this many reminders per pause. */
export const MAX_REMINDERS = 100;

export const formFollowUpShape = {
  remind_after: lazySchema(seconds),
  /** At most this many reminders (the first after `remind_after`, then every `remind_after`). */
  remind_max: lazySchema(() => nonNegInt(3)),
  remind_webhook: lazySchema(() =>
    z.preprocess(
      (v) => (v === undefined || v === null ? '' : v),
      z.string().refine((v) => v === '' || isHttpUrl(v), 'must be an http(s) URL'),
    ),
  ),
  remind_email: lazySchema(() => z.preprocess((v) => (v === undefined || v === '' ? null : v), RemindEmail.nullable())),
  escalate_after: lazySchema(seconds),
  escalate_goto: idList,
};

export interface FormFollowUpParams {
  remind_after: number | null;
  remind_max: number;
  remind_webhook: string;
  remind_email: z.infer<typeof RemindEmail> | null;
  escalate_after: number | null;
  escalate_goto: string[];
}

/**
 * The follow-up params of parsed UserFillUp params, defaults for those absent: a canvas the API
 * prepared before these params existed travels with its parsed params (workflows' `prepared`
 * input), which lack them.
 */
export function followUpOf(params: unknown): FormFollowUpParams {
  const p = (params ?? {}) as Partial<FormFollowUpParams>;
  return {
    remind_after: p.remind_after ?? null,
    remind_max: p.remind_max ?? 3,
    remind_webhook: p.remind_webhook ?? '',
    remind_email: p.remind_email ?? null,
    escalate_after: p.escalate_after ?? null,
    escalate_goto: p.escalate_goto ?? [],
  };
}

/** The checks across fields: a reminder needs a way to send it, an escalation a branch to take. */
export function checkFormFollowUp(p: FormFollowUpParams, ctx: z.RefinementCtx): void {
  if (p.remind_after !== null && p.remind_webhook === '' && p.remind_email === null)
    ctx.addIssue({ code: 'custom', path: ['remind_after'], message: 'a reminder needs remind_webhook (an http(s) URL) or remind_email (SMTP settings)' });
  if (p.remind_after !== null && p.remind_max < 1)
    ctx.addIssue({ code: 'custom', path: ['remind_max'], message: 'must be 1 or more when remind_after is set' });
  // Each reminder adds a dozen events to the paused workflow's history, which cannot be handed over while it waits.
  if (p.remind_max > MAX_REMINDERS) ctx.addIssue({ code: 'custom', path: ['remind_max'], message: `must be at most ${MAX_REMINDERS}` });
  if (p.escalate_after !== null && p.escalate_goto.length === 0)
    ctx.addIssue({ code: 'custom', path: ['escalate_goto'], message: 'escalate_after needs the component(s) the run goes to (escalate_goto)' });
  if (p.escalate_after === null && p.escalate_goto.length > 0)
    ctx.addIssue({ code: 'custom', path: ['escalate_after'], message: 'escalate_goto is set but escalate_after (seconds) is not' });
}

/** How reminders go out: the webhook when both are set. */
export function remindChannel(p: FormFollowUpParams): 'webhook' | 'email' | null {
  return p.remind_webhook !== '' ? 'webhook' : p.remind_email !== null ? 'email' : null;
}
