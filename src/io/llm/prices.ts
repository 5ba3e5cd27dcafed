/**
 * The price table (MODEL_PRICES): what a model's tokens cost, per 1M input (prompt) and output
 * (completion) tokens, per model id. A model the table does not name costs 0 and its calls are
 * flagged unpriced in the ledger, so a missing price shows instead of passing for free.
 */
import { z } from 'zod';
import { parseModelId } from '../../core/dsl/modelId';

const Price = z.strictObject({
  input: z.number().min(0, 'must be a price per 1M input tokens, 0 or more'),
  output: z.number().min(0, 'must be a price per 1M output tokens, 0 or more'),
});

export type ModelPrice = z.infer<typeof Price>;
export type PriceTable = Readonly<Record<string, ModelPrice>>;

const PriceTableSchema = z.record(z.string().min(1), Price);

/** Reads MODEL_PRICES (JSON `{"model id": {"input": usd, "output": usd}}`); throws naming the variable and key. */
export function pricesFromEnv(env: Record<string, string | undefined>): PriceTable {
  const raw = env.MODEL_PRICES?.trim();
  if (!raw) return {};
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (err) {
    throw new Error(`MODEL_PRICES is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  const parsed = PriceTableSchema.safeParse(json);
  if (!parsed.success) {
    const first = parsed.error.issues[0]!;
    throw new Error(`MODEL_PRICES.${first.path.join('.')}: ${first.message}`);
  }
  return parsed.data;
}

/**
 * The price of a call: looked up by the canvas' llm_id as written (`gpt-4o-mini@OpenAI`), then by
 * its model name (`gpt-4o-mini`), then by the model the provider said answered. Null: unpriced.
 */
export function priceOf(table: PriceTable, llmId: string, answeredBy: string): ModelPrice | null {
  for (const key of [llmId.trim(), parseModelId(llmId).model, answeredBy]) {
    if (key && Object.prototype.hasOwnProperty.call(table, key)) return table[key]!;
  }
  return null;
}

/** What `prompt` input and `completion` output tokens cost at `price` (0 when unpriced). */
export function costOf(price: ModelPrice | null, prompt: number, completion: number): number {
  if (!price) return 0;
  return (prompt * price.input + completion * price.output) / 1_000_000;
}
