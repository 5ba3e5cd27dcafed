/**
 * Provider limits (PROVIDER_LIMITS): requests and tokens per minute a provider or one of its
 * models accepts from this deployment, shared by every worker through the store
 * (store.ledger.windows). A model call that would pass a limit waits for the next minute's window,
 * heartbeating, instead of being sent to fail with a 429.
 *
 * Windows are clock minutes: within any one clock minute the limit holds; across a minute's end a
 * sliding 60 s span can see up to twice the limit (a fixed-window counter: one row per key and
 * minute, one statement per call).
 */
import { z } from 'zod';
import { factoryOf, parseModelId } from '../../core/dsl/modelId';

const Limit = z.strictObject({
  rpm: z.number().int().positive('must be a positive whole number of requests per minute').optional(),
  tpm: z.number().int().positive('must be a positive whole number of tokens per minute').optional(),
});

export type ProviderLimitTable = Readonly<Record<string, z.infer<typeof Limit>>>;

/** Reads PROVIDER_LIMITS: `{"OpenAI": {"rpm": 500, "tpm": 200000}, "gpt-4o@OpenAI": {"rpm": 60}}`; throws naming the key. */
export function providerLimitsFromEnv(env: Record<string, string | undefined>): ProviderLimitTable {
  const raw = env.PROVIDER_LIMITS?.trim();
  if (!raw) return {};
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (err) {
    throw new Error(`PROVIDER_LIMITS is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  const parsed = z.record(z.string().min(1), Limit).safeParse(json);
  if (!parsed.success) {
    const first = parsed.error.issues[0]!;
    throw new Error(`PROVIDER_LIMITS.${first.path.join('.')}: ${first.message}`);
  }
  return parsed.data;
}

export interface ProviderLimit {
  /** The table key that applies: `model@Factory` when the model has its own limit, else the factory. */
  key: string;
  requests: number | null;
  tokens: number | null;
}

/** The limit a call of `llmId` counts against (its model's own, else its factory's), or null. */
export function limitFor(table: ProviderLimitTable, llmId: string, defaultFactory: string): ProviderLimit | null {
  const factory = factoryOf(llmId, defaultFactory);
  const modelKey = `${parseModelId(llmId).model}@${factory}`;
  for (const key of [modelKey, factory]) {
    const l = Object.prototype.hasOwnProperty.call(table, key) ? table[key] : undefined;
    if (l && (l.rpm !== undefined || l.tpm !== undefined)) return { key, requests: l.rpm ?? null, tokens: l.tpm ?? null };
  }
  return null;
}
