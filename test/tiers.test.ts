import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sortTests } from '../vitest.config';

let root: string | undefined;
// Spelt in pieces: the tier sorter reads source text, and this file must not look like a user of inject().
const injectCall = ['inject', "('temporalAddress')"].join('');

/** A throwaway repository holding `files` (path → source). */
function repoWith(files: Record<string, string>): string {
  root = mkdtempSync(path.join(os.tmpdir(), 'agent-canvas-tiers-'));
  for (const [file, source] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), source);
  }
  return root;
}

afterEach(() => {
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

describe('test tiers', () => {
  it('puts a test that reaches inject() through helpers into the temporal tier', () => {
    const repo = repoWith({
      'src/core/x.test.ts': "import { y } from './y';",
      'src/core/y.ts': 'export const y = 1;',
      'test/helpers/temporal.ts': `import { inject } from 'vitest';\nexport const a = () => ${injectCall};`,
      'test/helpers/harness.ts': "export { a } from './temporal';",
      'test/api/runs.test.ts': "import { a } from '../helpers/harness';",
      'test/store/store.test.ts': "import { y } from '../../src/core/y';",
    });
    expect(sortTests(repo)).toEqual({
      pure: ['src/core/x.test.ts'],
      services: ['test/store/store.test.ts'],
      temporal: ['test/api/runs.test.ts'],
    });
  });

  it('refuses a test listed as pure that reaches the shared dev server', () => {
    const repo = repoWith({
      'src/core/x.test.ts': "import '../../test/helpers/temporal';",
      'test/helpers/temporal.ts': `import { inject } from 'vitest';\n${injectCall};`,
    });
    expect(() => sortTests(repo)).toThrow('src/core/x.test.ts is listed as a pure test');
  });

  it('runs every workflow test of this repository with the shared dev server', () => {
    const tiers = sortTests(path.resolve(import.meta.dirname, '..'));
    expect(tiers.temporal).toContain('test/workflow/canvasRun.test.ts');
    expect(tiers.temporal).toContain('test/replay/replay.test.ts');
    expect(tiers.pure).toContain('src/core/engine/run.test.ts');
  });
});
