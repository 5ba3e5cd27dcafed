/**
 * Runs one inline component on its own, as the engine would: params parsed by its schema (a
 * refusal is the load error RAGFlow's `check()` raises), references resolved from a table of
 * values (`begin@x` → value), templates rendered as the engine renders them. For table tests
 * of pure components against RAGFlow's behaviour on the same inputs.
 */
import type { ComponentContext } from '../../src/core/components/definition';
import type { AnyComponentDef } from '../../src/core/components/registry';
import { renderTemplate, type VariableRef } from '../../src/core/dsl/refs';

export type TableOutcome = { outputs: Record<string, unknown> } | { error: string };

export function runInline(def: AnyComponentDef, params: Record<string, unknown>, values: Record<string, unknown>): TableOutcome {
  const parsed = def.params.safeParse(params);
  if (!parsed.success) return { error: parsed.error.issues.map((i) => i.message).join('; ') };
  const resolve = (ref: VariableRef): unknown => values[ref.expr];
  const ctx = { id: 'x:0', resolve, render: (text: string) => renderTemplate(text, resolve) } as unknown as ComponentContext;
  const outcome = def.run(parsed.data, ctx);
  if (outcome.kind === 'error') return { error: outcome.message };
  if (outcome.kind !== 'done') throw new Error(`expected an inline outcome, got ${outcome.kind}`);
  return { outputs: outcome.outputs };
}
