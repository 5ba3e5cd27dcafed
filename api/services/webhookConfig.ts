/**
 * What a Webhook-mode Begin configures (RAGFlow's webhook params): the methods, security, content
 * types and request schema the gate checks, the execution mode, and the answer: "Immediately"
 * answers with the configured response, otherwise the run's Message gives the status.
 */
import { z } from 'zod';
import { AppError } from '../../src/errors';

const bad = (message: string) => new AppError('BAD_REQUEST', message);

/** The webhook part of a Webhook-mode Begin's params (unknown keys are RAGFlow's, kept as they are). */
const WebhookConfig = z.looseObject({
  methods: z
    .array(z.unknown())
    .catch([])
    .default([])
    .transform((m) => m.map((x) => String(x).toUpperCase())),
  security: z.unknown().optional(),
  content_types: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .catch(undefined),
  schema: z.unknown().optional(),
  execution_mode: z.unknown().optional(),
  response: z.unknown().optional(),
});
export type WebhookConfig = z.infer<typeof WebhookConfig>;

/** The params of the canvas's Begin when it is in Webhook mode (the mode in any case). */
export function webhookConfigOf(dsl: Record<string, unknown>): WebhookConfig | null {
  const components = (dsl.components ?? {}) as Record<string, { obj?: { component_name?: unknown; params?: Record<string, unknown> } }>;
  for (const c of Object.values(components)) {
    const obj = c?.obj;
    if (String(obj?.component_name ?? '').toLowerCase() !== 'begin') continue;
    if (String(obj?.params?.mode ?? '').toLowerCase() === 'webhook') return WebhookConfig.parse(obj!.params);
  }
  return null;
}

/** "Immediately" mode's answer: `response.status` (200-399) and `body_template` (JSON, else text). */
export function immediateAnswer(responseCfg: unknown): { status: number; type: string; body: string } {
  const cfg = (responseCfg && typeof responseCfg === 'object' ? responseCfg : {}) as { status?: unknown; body_template?: unknown };
  const raw = cfg.status ?? 200;
  const status = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : typeof raw === 'number' ? Math.trunc(raw) : NaN;
  if (!Number.isInteger(status)) throw bad(`Invalid response status code: ${String(raw)}`);
  if (status < 200 || status > 399) throw bad(`Invalid response status code: ${status}, must be between 200 and 399`);
  const tpl = cfg.body_template;
  if (tpl === undefined || tpl === null || tpl === '') return { status, type: 'application/json', body: 'null' };
  if (typeof tpl !== 'string') return { status, type: 'application/json', body: JSON.stringify(tpl) };
  try {
    return { status, type: 'application/json', body: JSON.stringify(JSON.parse(tpl)) };
  } catch {
    return { status, type: 'text/plain; charset=utf-8', body: tpl };
  }
}

/** A Message's `status` param (RAGFlow's `message_end.status`) as an HTTP status. */
export function messageStatus(raw: unknown, fallback: number): number {
  if (raw === undefined || raw === null || raw === '') return fallback;
  const status = Number(raw);
  if (!Number.isInteger(status) || status < 100 || status > 599) throw bad(`Invalid message status code: ${String(raw)}`);
  return status;
}
