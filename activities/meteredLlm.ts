/**
 * The cost ledger around the model-call activity: before a call, the run's and the tenant's
 * budgets (src/io/llm/budgets.ts) may refuse it with BUDGET_EXCEEDED (non-retryable; the run
 * workflow then fails the run, workflows/workflowCarrier.ts); after it, every attempt is recorded
 * with the model, the provider's token counts, its cost at MODEL_PRICES, its attempt number and
 * whether it was a retry. A wrapper rather than code in llm.ts, so the call itself stays as it is.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { LlmChatRequest, LlmChatResult } from '../src/core/components/callContracts';
import { agentBudgetOf, breachOf, hasBudgets, type Budget, type Budgets } from '../src/io/llm/budgets';
import { costOf, priceOf, type PriceTable } from '../src/io/llm/prices';
import { isAppError } from '../src/errors';
import type { Logger } from '../src/io/log';
import { budgetStops, modelCalls, modelCallsUnpriced, modelCost, modelTokens } from '../src/io/metrics/ledger';
import type { Store } from '../src/io/store/contract';
import { utcDay } from '../src/io/store/time';
import type { CallLedger, CallOptions } from './callRecord';
import { waitForCapacity } from './providerCapacity';
import { streamMeter } from './streamMeter';
import { limitFor, type ProviderLimitTable } from '../src/io/llm/providerLimits';
import { textRedactor } from '../src/io/llm/callTrace';
import { recordTrace, type CallProbe } from './callTraceRecord';

export interface LedgerDeps {
  store: Store;
  prices: PriceTable;
  budgets: Budgets;
  log: Logger;
  /** PROVIDER_LIMITS, and the factory of bare model names (DEFAULT_LLM_FACTORY) to find a call's limit. */
  limits?: ProviderLimitTable;
  defaultFactory?: string;
  /** Configured secret values (provider keys…) redacted wherever a call's trace would show them. */
  secrets?: readonly string[];
}

interface RunScope {
  tenantId: string;
  rootRunId: string;
  sessionId: string | null;
  canvasId: string;
  /** The run budget of the root run's canvas (its DSL's `budget`), replacing RUN_BUDGET_*. */
  agentBudget: Budget | null;
}

type LlmChat = (request: LlmChatRequest, options: CallOptions, probe?: CallProbe) => Promise<LlmChatResult>;

/** Rough prompt size (characters ÷ 4): only to gate a call against a budget, never recorded as usage. */
function promptFloor(request: LlmChatRequest): number {
  return Math.max(1, Math.ceil(request.messages.reduce((n, m) => n + m.content.length, 0) / 4));
}

export function meteredLlm<A extends { llmChat: LlmChat }>(activities: A, deps: LedgerDeps): A {
  const inner = activities.llmChat;
  const budgeted = hasBudgets(deps.budgets);
  const traces = { store: deps.store, log: deps.log, redact: textRedactor(deps.secrets ?? []) };
  // A run's tenant, session and parent never change: looked up once per process.
  const scopes = new Map<string, RunScope>();
  async function scopeOf(ledger: CallLedger): Promise<RunScope | null> {
    const known = scopes.get(ledger.runId);
    if (known) return known;
    const run = await deps.store.runs.getById(ledger.runId);
    if (!run) return null;
    const root = run.parent_run_id ? ((await deps.store.runs.getById(run.parent_run_id)) ?? run) : run;
    const version = root.canvas_version_id ? await deps.store.canvases.getVersion(root.tenant_id, root.canvas_id, root.canvas_version_id) : null;
    const dsl = version?.dsl ?? (await deps.store.canvases.get(root.tenant_id, root.canvas_id))?.dsl;
    const scope: RunScope = {
      tenantId: run.tenant_id,
      rootRunId: root.id,
      sessionId: run.session_id,
      canvasId: run.canvas_id,
      agentBudget: agentBudgetOf(dsl),
    };
    if (scopes.size > 10_000) scopes.clear();
    scopes.set(ledger.runId, scope);
    return scope;
  }

  async function llmChat(request: LlmChatRequest, options: CallOptions): Promise<LlmChatResult> {
    const ledger = options?.ledger;
    // Calls from histories recorded before the ledger carry no context: made, not metered.
    let scope: RunScope | null;
    try {
      scope = ledger ? await scopeOf(ledger) : null;
    } catch (err) {
      // A canvas budget that is not a budget: a configuration error, the call is not made.
      if (isAppError(err, 'COMPONENT_PARAMS'))
        throw ApplicationFailure.create({ type: err.code, message: err.message, details: [err.details], nonRetryable: true });
      throw err;
    }
    if (!ledger || !scope) return inner(request, options);
    const ctx = Context.current();
    const attempt = ctx.info.attempt;
    if (budgeted || scope.agentBudget) {
      const spent = await deps.store.ledger.spent(scope.rootRunId, scope.tenantId, utcDay(Date.now()));
      const prompt = promptFloor(request);
      const breach = breachOf(deps.budgets, { tenantId: scope.tenantId, agent: scope.agentBudget }, spent, {
        tokens: prompt,
        cost: costOf(priceOf(deps.prices, request.llmId, ''), prompt, 0),
      });
      if (breach) {
        budgetStops.inc({ budget: breach.budget });
        throw ApplicationFailure.create({ type: 'BUDGET_EXCEEDED', message: breach.message, details: [breach], nonRetryable: true });
      }
    }
    // Room under the provider's limit, taken before the call (and waited for when there is none).
    const limit = deps.limits ? limitFor(deps.limits, request.llmId, deps.defaultFactory ?? 'OpenAI') : null;
    const floor = promptFloor(request);
    let waitedSince: number | null = null;
    const window = limit ? await waitForCapacity(deps.store.ledger.windows, limit, floor, ctx, (since) => (waitedSince = since)) : null;
    const entry = (model: string, prompt: number, completion: number, reported: boolean, outcome: 'ok' | 'failed') => {
      const price = priceOf(deps.prices, request.llmId, model);
      return {
        id: `${ctx.info.workflowExecution?.runId ?? ledger.runId}:${ctx.info.activityId}:${attempt}`,
        tenantId: scope.tenantId,
        runId: ledger.runId,
        rootRunId: scope.rootRunId,
        sessionId: scope.sessionId,
        canvasId: scope.canvasId,
        nodeId: ledger.nodeId,
        model,
        promptTokens: prompt,
        completionTokens: completion,
        usageReported: reported,
        cost: costOf(price, prompt, completion),
        priced: price !== null,
        attempt,
        retry: attempt > 1,
        outcome,
        time: Date.now(),
      };
    };
    // The attempt's trace for the run view's model call panel (activities/callTraceRecord.ts).
    const probe: CallProbe = {};
    const sentAt = Date.now();
    const timing = () => ({ waitedSince, sentAt, endedAt: Date.now(), probe });
    let result: LlmChatResult;
    try {
      result = await inner(request, options, probe);
    } catch (err) {
      // A failed attempt may have been paid for, but no usage came with it: recorded with 0 tokens.
      // One a cancel cut off was sent and streamed part of its answer: recorded with an estimate
      // (characters ÷ 4, usage_reported false), so a canceled run does not look free.
      const cut = ctx.cancellationSignal.aborted;
      const failed = entry(request.llmId, cut ? floor : 0, cut ? Math.ceil(streamMeter(ctx).chars / 4) : 0, false, 'failed');
      await write(failed);
      await recordTrace(traces, failed, ctx.info.activityId, request, timing(), { error: err });
      throw err;
    }
    // Usage the provider did not report is an estimate (usage.estimated): the ledger records 0 and flags it.
    const reported = result.usage.estimated !== true;
    if (limit && window !== null)
      await deps.store.ledger.windows
        .addTokens(limit.key, window, result.usage.prompt_tokens - floor + result.usage.completion_tokens)
        .catch((err: unknown) => deps.log.warn('could not count a call’s tokens against its provider limit', { error: String(err) }));
    const done = entry(result.model || request.llmId, reported ? result.usage.prompt_tokens : 0, reported ? result.usage.completion_tokens : 0, reported, 'ok');
    await write(done);
    await recordTrace(traces, done, ctx.info.activityId, request, timing(), { result });
    return result;
  }

  /** Records an attempt; the ledger failing does not fail a call that was made (and paid for). */
  async function write(e: Parameters<Store['ledger']['record']>[0]): Promise<void> {
    modelCalls.inc({ outcome: e.outcome, retry: String(e.retry) });
    modelTokens.inc({ kind: 'prompt' }, e.promptTokens);
    modelTokens.inc({ kind: 'completion' }, e.completionTokens);
    modelCost.inc(e.cost);
    if (!e.priced) modelCallsUnpriced.inc();
    try {
      await deps.store.ledger.record(e);
    } catch (err) {
      deps.log.warn('the cost ledger could not record a model call', { id: e.id, error: err instanceof Error ? err.message : String(err) });
    }
  }

  return { ...activities, llmChat };
}
