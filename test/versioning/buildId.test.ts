/** A worker's build id: what the operator sees in `npm run versions` and what pins a run to its code. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { workerBuildId } from '../../src/io/temporal/deployment';

const root = path.resolve(__dirname, '../..');

describe('the worker build id', () => {
  it('is the package version and the short commit, marked dirty when tracked files changed', () => {
    expect(workerBuildId(root)).toMatch(/^0\.1\.0-[0-9a-f]{7}(-dirty)?$/);
  });

  it('is WORKER_BUILD_ID when set (an image has no .git)', () => {
    expect(workerBuildId(root, 'img-42')).toBe('img-42');
  });

  it('is the package version alone outside a git work tree', () => {
    const copy = mkdtempSync(path.join(os.tmpdir(), 'agent-canvas-no-git-'));
    try {
      writeFileSync(path.join(copy, 'package.json'), JSON.stringify({ version: '9.8.7' }));
      expect(workerBuildId(copy)).toBe('9.8.7');
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});
