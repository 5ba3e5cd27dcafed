/**
 * Budgets: how much one run (with its sub-agent runs) and one tenant per UTC day may spend on
 * model calls, in tokens and in cost (MODEL_PRICES' currency). A call is refused before it starts
 * when what was spent plus what the call is known to take would pass a budget; a stream is never
 * cut. What a call is known to take before it runs is its prompt, measured as characters ÷ 4: a
 * gate only, never recorded as usage (the ledger records the provider's counts).
 */
import { z } from 'zod';
import { AppError } from '../../errors';

export interface Budget {
  maxCost: number | null;
  maxTokens: number | null;
}

export interface Budgets {
  run: Budget;
  tenantDay: Budget;
  /** Per-tenant daily budgets that replace `tenantDay` for that tenant (TENANT_DAILY_BUDGETS). */
  tenants: Readonly<Record<string, Budget>>;
}

const limit = (name: string, raw: string | undefined): number | null => {
  if (raw === undefined || raw.trim() === '') return null;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got ${JSON.stringify(raw)}`);
  return n;
};

const TenantBudgets = z.record(z.string().min(1), z.strictObject({ max_cost: z.number().positive().optional(), max_tokens: z.number().positive().optional() }));

/** Reads the budget variables; a bad value throws naming the variable. */
export function budgetsFromEnv(env: Record<string, string | undefined>): Budgets {
  const tenants: Record<string, Budget> = {};
  const raw = env.TENANT_DAILY_BUDGETS?.trim();
  if (raw) {
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch (err) {
      throw new Error(`TENANT_DAILY_BUDGETS is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
    }
    const parsed = TenantBudgets.safeParse(json);
    if (!parsed.success) {
      const first = parsed.error.issues[0]!;
      throw new Error(`TENANT_DAILY_BUDGETS.${first.path.join('.')}: ${first.message}`);
    }
    for (const [tenant, b] of Object.entries(parsed.data)) tenants[tenant] = { maxCost: b.max_cost ?? null, maxTokens: b.max_tokens ?? null };
  }
  return {
    run: { maxCost: limit('RUN_BUDGET_MAX_COST', env.RUN_BUDGET_MAX_COST), maxTokens: limit('RUN_BUDGET_MAX_TOKENS', env.RUN_BUDGET_MAX_TOKENS) },
    tenantDay: {
      maxCost: limit('TENANT_DAILY_BUDGET_MAX_COST', env.TENANT_DAILY_BUDGET_MAX_COST),
      maxTokens: limit('TENANT_DAILY_BUDGET_MAX_TOKENS', env.TENANT_DAILY_BUDGET_MAX_TOKENS),
    },
    tenants,
  };
}

const AgentBudget = z.strictObject({
  max_cost: z.number().positive('must be a positive cost').optional(),
  max_tokens: z.number().positive('must be a positive number of tokens').optional(),
});

/**
 * An agent's own run budget: the canvas DSL's top-level `budget: {max_cost?, max_tokens?}`, which
 * replaces RUN_BUDGET_* for runs of that canvas. Null when the canvas sets none.
 * @throws AppError COMPONENT_PARAMS naming the JSON path of a bad value.
 */
export function agentBudgetOf(dsl: Record<string, unknown> | null | undefined): Budget | null {
  const raw = dsl?.budget;
  if (raw === undefined || raw === null) return null;
  const parsed = AgentBudget.safeParse(raw);
  if (!parsed.success) {
    const first = parsed.error.issues[0]!;
    const path = ['$', 'budget', ...first.path].join('.');
    throw new AppError('COMPONENT_PARAMS', `${path}: ${first.message}`, { problems: [{ path, message: first.message }] });
  }
  return { maxCost: parsed.data.max_cost ?? null, maxTokens: parsed.data.max_tokens ?? null };
}

/** Whether any budget is set (when none is, a call need not read what was spent). */
export function hasBudgets(b: Budgets): boolean {
  const set = (x: Budget) => x.maxCost !== null || x.maxTokens !== null;
  return set(b.run) || set(b.tenantDay) || Object.values(b.tenants).some(set);
}

export interface Spent {
  tokens: number;
  cost: number;
}

/** A budget the next call would pass: which one, and a message that names it. */
export interface BudgetBreach {
  budget: 'run.max_tokens' | 'run.max_cost' | 'tenant_day.max_tokens' | 'tenant_day.max_cost';
  limit: number;
  spent: number;
  message: string;
}

/**
 * The first budget that `next` (the call about to start: its prompt tokens and their cost) would
 * pass, given what the run and the tenant's day have spent; null when it fits them all.
 */
export function breachOf(
  budgets: Budgets,
  scope: { tenantId: string; agent: Budget | null },
  spent: { run: Spent; tenantDay: Spent },
  next: Spent,
): BudgetBreach | null {
  const { tenantId } = scope;
  const day = budgets.tenants[tenantId] ?? budgets.tenantDay;
  const run = scope.agent ?? budgets.run;
  const checks: Array<[BudgetBreach['budget'], number | null, number, number, string]> = [
    ['run.max_tokens', run.maxTokens, spent.run.tokens, next.tokens, 'tokens'],
    ['run.max_cost', run.maxCost, spent.run.cost, next.cost, 'cost'],
    ['tenant_day.max_tokens', day.maxTokens, spent.tenantDay.tokens, next.tokens, 'tokens'],
    ['tenant_day.max_cost', day.maxCost, spent.tenantDay.cost, next.cost, 'cost'],
  ];
  for (const [budget, max, used, more, unit] of checks) {
    if (max === null || used + more <= max) continue;
    const whose = budget.startsWith('run') ? 'the run' : `tenant ${tenantId} today (UTC)`;
    const fmt = (n: number) => (unit === 'cost' ? n.toFixed(6).replace(/0+$/, '').replace(/\.$/, '') : String(Math.round(n)));
    return {
      budget,
      limit: max,
      spent: used,
      message: `budget ${budget} exceeded: ${whose} spent ${fmt(used)} ${unit} of ${fmt(max)}, and the next model call needs at least ${fmt(more)} more; the call was not made`,
    };
  }
  return null;
}
