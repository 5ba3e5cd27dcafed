/**
 * The `sendFormReminder` activity: one reminder of a paused form (UserFillUp `remind_after`,
 * workflows/pauseFollowUp.ts), as a POST of JSON to `remind_webhook` or an email over the Email
 * tool's SMTP (`remind_email`). The params are read from the run's canvas version, never from
 * workflow history (the SMTP password is redacted there). A 4xx answer, a refused login or a bad
 * address is not retried; a 5xx, a timeout or an unreachable host is (the workflow's retry policy).
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { AppError } from '../src/errors';
import type { Store } from '../src/io/store/contract';
import { guardedFetch } from '../src/io/net';
import { sendEmail } from '../src/io/tools/email';
import { loadToolParams } from '../src/io/tools/params';
import { toFailure } from './llm';

export interface FormReminderRequest {
  runId: string;
  componentId: string;
  /** Where the component's params are in the run's canvas (its `canvas.origins` entry). */
  paramsPath: Array<string | number>;
  /** 1 for the first reminder. */
  attempt: number;
  max: number;
  channel: 'webhook' | 'email';
  tips: string;
  fields: Record<string, unknown>;
  /** The `user_inputs` event of the pause: an answer naming it (`pause_seq`) is refused once the pause moved on. */
  pauseSeq: number;
}

export interface FormReminderDeps {
  store: Store;
  env: Record<string, string | undefined>;
}

const SERVICE = 'Form reminder';

/** What a reminder says, the same on both channels. */
export function reminderPayload(r: FormReminderRequest): Record<string, unknown> {
  return {
    task_id: r.runId,
    component_id: r.componentId,
    tips: r.tips,
    form: { fields: r.fields, submit_url: `/api/v1/runs/${r.runId}/inputs`, pause_seq: r.pauseSeq },
    attempt: r.attempt,
    remind_max: r.max,
  };
}

function emailText(r: FormReminderRequest): string {
  const fields = Object.keys(r.fields).join(', ') || 'none';
  return [
    r.tips || 'A form is waiting for your answer.',
    '',
    `Run: ${r.runId}`,
    `Fields: ${fields}`,
    `Answer with POST /api/v1/runs/${r.runId}/inputs`,
    `(reminder ${r.attempt} of ${r.max})`,
  ].join('\n');
}

async function sendWebhook(url: string, r: FormReminderRequest, deps: FormReminderDeps, signal: AbortSignal): Promise<{ status: number }> {
  const res = await guardedFetch(
    url,
    { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(reminderPayload(r)) },
    { env: deps.env, signal, service: SERVICE, timeoutMs: 30_000, maxRedirects: 0 },
  );
  if (res.status >= 200 && res.status < 300) return { status: res.status };
  // The receiver refused the reminder itself (a wrong URL, a bad token): another try says the same.
  if (res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 429)
    throw new AppError('TOOL_BAD_REQUEST', `${SERVICE}: ${url} answered ${res.status}`, { status: res.status });
  throw new AppError('TOOL_UNAVAILABLE', `${SERVICE}: ${url} answered ${res.status}`, { status: res.status });
}

export function createFormReminderActivities(deps: FormReminderDeps) {
  return {
    async sendFormReminder(r: FormReminderRequest): Promise<{ channel: 'webhook' | 'email'; status?: number }> {
      const ctx = Context.current();
      try {
        const { params, tenantId } = await loadToolParams(deps.store, r.runId, r.paramsPath);
        if (r.channel === 'webhook') {
          const url = typeof params.remind_webhook === 'string' ? params.remind_webhook : '';
          if (!url) throw new AppError('COMPONENT_PARAMS', `${r.componentId} has no remind_webhook in the run's canvas`);
          return { channel: 'webhook', ...(await sendWebhook(url, r, deps, ctx.cancellationSignal)) };
        }
        const smtp = params.remind_email;
        if (typeof smtp !== 'object' || smtp === null) throw new AppError('COMPONENT_PARAMS', `${r.componentId} has no remind_email in the run's canvas`);
        const email = smtp as Record<string, unknown>;
        const subject = typeof email.subject === 'string' && email.subject ? email.subject : 'A form is waiting for your answer';
        await sendEmail({
          params: email,
          args: { to_email: email.to_email, subject: `${subject} (${r.attempt}/${r.max})`, content: emailText(r) },
          env: deps.env,
          signal: ctx.cancellationSignal,
          tenantId,
        });
        return { channel: 'email' };
      } catch (err) {
        if (ctx.cancellationSignal.aborted) throw err;
        if (err instanceof AppError) throw toFailure(err, false);
        throw ApplicationFailure.create({ type: 'TOOL_UNAVAILABLE', message: err instanceof Error ? err.message : String(err) });
      }
    },
  };
}
