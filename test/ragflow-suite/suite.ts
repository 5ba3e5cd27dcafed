/**
 * RAGFlow's own REST tests, taken from the fetched infiniflow/ragflow repository into
 * .tools/ragflow-rest/suite (git-ignored, never committed) with only their login fixture replaced
 * (test/ragflow-suite/run.ts runs them).
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { run } from '../helpers/pythonVenv';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const work = path.join(root, '.tools', 'ragflow-rest');
/** Where the suite is extracted (its tests under test/, pytest settings in pyproject.toml). */
export const suiteDir = path.join(work, 'suite');

/** The mirror of infiniflow/ragflow: a bare git dir or a checkout. */
function findMirror(): string {
  const candidates = [process.env.RAGFLOW_MIRROR, '/work/.mirror/infiniflow+ragflow/repo', path.resolve(root, '../.mirror/infiniflow+ragflow/repo')].filter(
    (c): c is string => Boolean(c),
  );
  for (const c of candidates) if (existsSync(path.join(c, 'HEAD')) || existsSync(path.join(c, '.git'))) return c;
  throw new Error(`RAGFlow's repository not found (set RAGFLOW_MIRROR to a clone or bare git dir); looked at:\n  ${candidates.join('\n  ')}`);
}

/** Our replacement for RAGFlow's login fixtures (appended to their test/testcases/conftest.py). */
const AUTH_OVERRIDE = `

# ---- agent-canvas: the only change to RAGFlow's suite. Their \`auth\` registers and logs in a
# user, \`token\` creates an API key with it, and \`set_tenant_info\` configures model providers;
# agent-canvas has API keys only, so all three are replaced by the key in RAGFLOW_API_KEY.
import os as _agent_canvas_os


@pytest.fixture(scope="session")
def auth():
    return "Bearer " + _agent_canvas_os.environ["RAGFLOW_API_KEY"]


@pytest.fixture(scope="session")
def token():
    return _agent_canvas_os.environ["RAGFLOW_API_KEY"]


@pytest.fixture(scope="session", autouse=True)
def set_tenant_info():
    yield
`;

/** Extracts RAGFlow's tests (and the pytest settings in its pyproject.toml) once per commit. */
export async function extractSuite(): Promise<string> {
  const mirror = findMirror();
  const isBare = !existsSync(path.join(mirror, '.git'));
  const git = (args: string[]) => run('git', [isBare ? `--git-dir=${mirror}` : `-C`, ...(isBare ? [] : [mirror]), ...args]);
  const commit = (await git(['rev-parse', 'HEAD'])).trim();
  const stamp = path.join(suiteDir, '.ragflow-commit');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === commit) return commit;
  rmSync(suiteDir, { recursive: true, force: true });
  mkdirSync(suiteDir, { recursive: true });
  const archive = path.join(work, 'ragflow-test.tar');
  await git(['archive', '--format=tar', `--output=${archive}`, commit, 'test/', 'pyproject.toml']);
  await run('tar', ['-xf', archive, '-C', suiteDir]);
  rmSync(archive);
  const conftest = path.join(suiteDir, 'test', 'testcases', 'conftest.py');
  writeFileSync(conftest, readFileSync(conftest, 'utf8') + AUTH_OVERRIDE);
  writeFileSync(stamp, `${commit}\n`);
  return commit;
}
