/**
 * The cost ledger's counters (src/io/store/ledger.ts keeps the rows; these are the process's view
 * for Prometheus). No model or tenant label: both come from canvases and grow with use; the
 * ledger's `GET /api/v1/usage` breaks spending down by them.
 */
import { Counter } from 'prom-client';
import { registry } from './registry';

export const modelCalls = new Counter({
  name: 'agent_canvas_model_calls_total',
  help: 'Model call attempts this worker made, by outcome (ok, failed) and whether the attempt was a retry (true, false).',
  labelNames: ['outcome', 'retry'] as const,
  registers: [registry],
});

export const modelTokens = new Counter({
  name: 'agent_canvas_model_tokens_total',
  help: 'Tokens the providers reported for this worker’s model calls, by kind (prompt, completion).',
  labelNames: ['kind'] as const,
  registers: [registry],
});

export const modelCost = new Counter({
  name: 'agent_canvas_model_cost_total',
  help: 'What this worker’s model calls cost at MODEL_PRICES (its currency); unpriced models count 0.',
  registers: [registry],
});

export const modelCallsUnpriced = new Counter({
  name: 'agent_canvas_model_calls_unpriced_total',
  help: 'Model calls of models MODEL_PRICES does not price (counted at cost 0).',
  registers: [registry],
});

export const modelCallsSaved = new Counter({
  name: 'agent_canvas_model_calls_saved_total',
  help: 'Finished model calls whose result a workflow replay reused instead of calling the model again (counted once per call).',
  registers: [registry],
});

export const modelTokensSaved = new Counter({
  name: 'agent_canvas_model_tokens_saved_total',
  help: 'Tokens of the model calls replays reused (their recorded usage), by kind (prompt, completion).',
  labelNames: ['kind'] as const,
  registers: [registry],
});

export const budgetStops = new Counter({
  name: 'agent_canvas_budget_stops_total',
  help: 'Model calls refused because a budget would be exceeded, by budget (run.max_tokens, run.max_cost, tenant_day.max_tokens, tenant_day.max_cost).',
  labelNames: ['budget'] as const,
  registers: [registry],
});
