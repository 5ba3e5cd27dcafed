/**
 * An automated accessibility check of what a page shows now: axe-core (from npm) run inside the
 * page, failing on any serious or critical violation, each listed with its rule, help text and
 * the elements it names. Any page test can call `expectNoSeriousViolations(page)`.
 *
 * The run view's Content-Security-Policy allows no inline script, so axe's source is evaluated
 * through the DevTools protocol (page.evaluate) rather than injected as a <script> tag.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/** The page's violations of impact serious or critical (WCAG 2.x A/AA rules and axe's best practices). */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  const loaded = await page.evaluate(() => typeof (globalThis as { axe?: unknown }).axe === 'object');
  if (!loaded) await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    type Result = { violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: unknown[] }> }> };
    const axe = (globalThis as unknown as { axe: { run(opts: unknown): Promise<Result> } }).axe;
    // The whole document (axe's default context when given only options).
    const result = await axe.run({ resultTypes: ['violations'] });
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.map(String).join(' ')).slice(0, 8) }));
  });
}

/** Fails the test when the page has a serious or critical accessibility violation; the message lists them. */
export async function expectNoSeriousViolations(page: Page, where = page.url()): Promise<void> {
  const found = await seriousViolations(page);
  const lines = found.map((v) => `${v.impact} ${v.id}: ${v.help}\n    ${v.nodes.join('\n    ')}`);
  expect(lines, `axe-core on ${where}`).toEqual([]);
}
