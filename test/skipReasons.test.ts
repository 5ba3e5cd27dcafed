/**
 * A skipped test must say why in the run's output: a run that quietly skips whole suites (no
 * PostgreSQL, no Chromium) reads like a run that tested them. These checks read the test sources.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');
const HELPER = 'test/helpers/skip.ts';

function sources(): { file: string; text: string }[] {
  return ['src', 'test']
    .flatMap((dir) =>
      readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' }).map((name) => path.posix.join(dir, name.split(path.sep).join('/'))),
    )
    .filter((file) => file.endsWith('.ts') && (file.startsWith('test/') || file.endsWith('.test.ts')) && file !== HELPER && file !== 'test/skipReasons.test.ts')
    .map((file) => ({ file, text: readFileSync(path.join(root, file), 'utf8') }));
}

describe('skipped tests', () => {
  it('print a reason beside every conditional skip (skipIf, runIf)', () => {
    const silent = sources()
      .filter(({ text }) => /\.(skipIf|runIf)\(/.test(text))
      .filter(({ text }) => !/console\.warn\([^;]*skip/.test(text))
      .map(({ file }) => file);
    expect(silent, 'files that skip on a condition without a console.warn saying why').toEqual([]);
  });

  it("skip from inside a test only through skipBecause, which prints the reason (vitest's note alone shows only in verbose listings)", () => {
    const direct = sources()
      .filter(({ text }) => /\b\w+\.skip\(|\{\s*skip\s*\}/.test(text))
      .map(({ file }) => file);
    expect(direct, 'files calling skip() directly (or it.skip/describe.skip)').toEqual([]);
  });
});
