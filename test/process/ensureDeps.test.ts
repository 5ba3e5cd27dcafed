/**
 * The install `npm start` and `npm test` do on a fresh clone (scripts/ensure-deps.mjs) installs
 * the lock file as it is: it never rewrites package.json or package-lock.json, which are tracked
 * (a modified work tree would also make the worker's build id end in -dirty). Checked on a small
 * project of its own whose lock file an `npm install` would rewrite (an older lockfileVersion 2
 * lock, to which npm install adds the v1 `dependencies` section); its one dependency is local,
 * so no registry is needed.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ensureDepsModule = pathToFileURL(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../scripts/ensure-deps.mjs')).href;
const project = mkdtempSync(path.join(os.tmpdir(), 'agent-canvas-ensure-deps-'));

afterAll(() => rmSync(project, { recursive: true, force: true }));

const PACKAGE_JSON = `${JSON.stringify({ name: 'fresh-clone', version: '1.0.0', private: true, dependencies: { 'local-dep': 'file:./local-dep' } }, null, 2)}\n`;
const LOCK_V2 = `${JSON.stringify(
  {
    name: 'fresh-clone',
    version: '1.0.0',
    lockfileVersion: 2,
    requires: true,
    packages: {
      '': { name: 'fresh-clone', version: '1.0.0', dependencies: { 'local-dep': 'file:./local-dep' } },
      'local-dep': { version: '1.0.0' },
      'node_modules/local-dep': { resolved: 'local-dep', link: true },
    },
  },
  null,
  2,
)}\n`;

/** Runs ensureDeps(project) in its own process (it exits the process when the install fails). */
function ensureDeps(): { status: number | null; output: string } {
  const result = spawnSync(process.execPath, ['-e', `import(${JSON.stringify(ensureDepsModule)}).then((m) => m.ensureDeps(${JSON.stringify(project)}))`], {
    cwd: project,
    encoding: 'utf8',
    env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' },
    timeout: 180_000,
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe('installing dependencies on a fresh clone', () => {
  it('installs exactly the lock file and leaves package.json and package-lock.json byte for byte as they were', () => {
    mkdirSync(path.join(project, 'local-dep'));
    writeFileSync(path.join(project, 'local-dep', 'package.json'), '{"name":"local-dep","version":"1.0.0"}\n');
    writeFileSync(path.join(project, 'package.json'), PACKAGE_JSON);
    writeFileSync(path.join(project, 'package-lock.json'), LOCK_V2);

    const first = ensureDeps();
    expect(first.status, first.output).toBe(0);
    expect(first.output).toContain('installing dependencies');
    expect(existsSync(path.join(project, 'node_modules', 'local-dep', 'package.json'))).toBe(true);
    expect(readFileSync(path.join(project, 'package-lock.json'), 'utf8')).toBe(LOCK_V2);
    expect(readFileSync(path.join(project, 'package.json'), 'utf8')).toBe(PACKAGE_JSON);

    // The next start finds the install stamped and installs nothing.
    const second = ensureDeps();
    expect(second.status, second.output).toBe(0);
    expect(second.output).not.toContain('installing dependencies');
  }, 300_000);
});
