/**
 * docs/CONFIGURATION.md names every environment variable the product reads, so a setting cannot
 * exist only in the code. Read from the sources: `process.env.X`, an env record's `env.X` /
 * `env['X']`, the keys of src/io/config.ts's schema, provider `keyEnv`s, and the quoted names
 * tool executors look up (`*_BASE_URL`, `*_API_KEY`, `*_TOKEN`…).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const PRODUCT_DIRS = ['src', 'server', 'api', 'activities', 'workflows', 'scripts'];
const ENV_NAME = '[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*';
const READS = [
  new RegExp(`\\b(?:process\\.env|env|e)\\.(${ENV_NAME})\\b`, 'g'),
  new RegExp(`\\b(?:process\\.env|env)\\[['"](${ENV_NAME})['"]\\]`, 'g'),
  new RegExp(`keyEnv: ['"](${ENV_NAME})['"]`, 'g'),
  new RegExp(`['"](${ENV_NAME}_(?:BASE_URL|API_URL|COOKIE_URL|API_KEY|AUTH_KEY|SECRET_KEY|TOKEN|PORT))['"]`, 'g'),
];
/** Quoted names that look like settings but are not read from the environment. */
const NOT_SETTINGS = new Set(['YOUR_API_KEY', 'PATH', 'HOME', 'NODE_ENV']);

function productSources(): { file: string; text: string }[] {
  return PRODUCT_DIRS.flatMap((dir) =>
    readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' })
      .filter((name) => /\.(ts|mjs)$/.test(name) && !name.endsWith('.test.ts'))
      .map((name) => ({ file: path.join(dir, name), text: readFileSync(path.join(root, dir, name), 'utf8') })),
  );
}

function variablesRead(): Map<string, string> {
  const found = new Map<string, string>();
  for (const { file, text } of productSources()) {
    const patterns = file === path.join('src', 'io', 'config.ts') ? [...READS, new RegExp(`^\\s+(${ENV_NAME}): z\\.`, 'gm')] : READS;
    for (const pattern of patterns) for (const match of text.matchAll(pattern)) if (!NOT_SETTINGS.has(match[1]!)) found.set(match[1]!, file);
  }
  return found;
}

describe('docs/CONFIGURATION.md', () => {
  it('names every environment variable the product reads', () => {
    const doc = readFileSync(path.join(root, 'docs/CONFIGURATION.md'), 'utf8');
    const read = variablesRead();
    expect(read.size).toBeGreaterThan(80);
    const missing = [...read].filter(([name]) => !doc.includes(`\`${name}\``)).map(([name, file]) => `${name} (read in ${file})`);
    expect(missing).toEqual([]);
  });
});
