// Installs dependencies on the first `npm start` / `npm test` of a fresh clone, and again whenever
// package.json or package-lock.json change. Runs BEFORE anything is installed: node builtins only.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const STAMP = '.agent-canvas-installed';

/**
 * Makes sure `<root>/node_modules` matches package-lock.json, running `npm ci` when it may not.
 * Exits the process with a clear message when the install fails.
 * @param {string} root repository root (where package.json lives)
 */
export function ensureDeps(root) {
  const stampFile = path.join(root, 'node_modules', STAMP);
  const wanted = manifestHash(root);
  if (readOrNull(stampFile)?.trim() === wanted) return;

  // node_modules installed some other way (a plain `npm install`, an IDE) is adopted as it is.
  if (installedTreeMatchesLock(root)) {
    writeFileSync(stampFile, `${wanted}\n`);
    return;
  }

  // `npm ci`: exactly the locked versions, and never a write to package.json or package-lock.json
  // (a start must not leave the work tree modified: the worker's build id would end in -dirty).
  // The lock file holds every platform's optional packages, so npm ci accepts it on any platform.
  const args = ['ci', '--no-audit', '--no-fund'];
  console.log('agent-canvas: installing dependencies (first run)...');
  const result = spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', args, {
    cwd: root,
    stdio: 'inherit',
    shell: process.platform === 'win32', // .cmd files can only be spawned through a shell
  });
  if (result.status !== 0) {
    const reason = result.error ? result.error.message : `exit code ${result.status ?? result.signal}`;
    console.error(
      `agent-canvas: \`npm ${args.join(' ')}\` failed (${reason}). Fix the error above and run the command again` +
        ' (if package.json and package-lock.json disagree, `npm install` brings the lock file up to date: commit it).',
    );
    process.exit(result.status || 1);
  }
  // A project without dependencies gets no node_modules from npm.
  mkdirSync(path.dirname(stampFile), { recursive: true });
  writeFileSync(stampFile, `${wanted}\n`);
}

/** sha256 over package.json and package-lock.json: any dependency change invalidates the stamp. */
function manifestHash(root) {
  const hash = createHash('sha256');
  for (const file of ['package.json', 'package-lock.json']) {
    hash.update(`${file}\0`);
    hash.update(readOrNull(path.join(root, file)) ?? '');
  }
  return hash.digest('hex');
}

/**
 * True when npm's own record of the installed tree (node_modules/.package-lock.json) has every
 * package of package-lock.json at the locked version. Optional packages may be absent
 * (they are other platforms' binaries).
 */
function installedTreeMatchesLock(root) {
  try {
    const locked = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8')).packages;
    const installed = JSON.parse(readFileSync(path.join(root, 'node_modules', '.package-lock.json'), 'utf8')).packages;
    if (!locked || !installed) return false;
    return Object.entries(locked).every(([name, entry]) => {
      if (name === '' || entry.link) return true;
      const present = installed[name];
      if (!present) return Boolean(entry.optional || entry.devOptional);
      return present.version === entry.version && existsSync(path.join(root, name));
    });
  } catch {
    return false;
  }
}

function readOrNull(file) {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}
