/**
 * A real headless Chromium for the run view's tests: Debian's `chromium` (CHROMIUM_PATH to use
 * another) driven by playwright-core — Playwright's own browser download cannot work offline. One
 * browser per test file with a fresh profile; screenshots go to test-output/ui/ (git-ignored).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const OUTPUT_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../test-output/ui');
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export interface Browser {
  context: BrowserContext;
  /** A new tab, its console errors and page errors collected. */
  page(): Promise<{ page: Page; errors: string[] }>;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<Browser> {
  const profile = mkdtempSync(path.join(os.tmpdir(), 'agent-canvas-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1360, height: 900 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  return {
    context,
    async page() {
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (err) => errors.push(`pageerror: ${err.message}`));
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(`console: ${m.text()}`);
      });
      return { page, errors };
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Saves a full-page screenshot under test-output/ui/ and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(OUTPUT_DIR, { recursive: true });
  const file = path.join(OUTPUT_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/** Opens the run view and signs in with `key`. */
export async function signIn(page: Page, base: string, key: string): Promise<void> {
  await page.goto(`${base}/ui/`);
  await page.locator('[data-role=api-key]').fill(key);
  await page.locator('form.login button[type=submit]').click();
  await page.locator('table.runs').waitFor();
}
