/**
 * The suite's three tiers, as vitest projects:
 *
 * - `pure`: tests that boot nothing (no Temporal, no database, no server, no child process): the
 *   core's DSL, components and engine, the pipeline's parsers and chunkers, parsing and guard
 *   helpers. Listed by hand in PURE_TESTS, because "boots nothing" is a property of what a test
 *   does, not of what it imports; `npx vitest run --project pure` runs them in well under a minute.
 * - `temporal`: tests that use the suite's shared Temporal dev server (through `inject`, usually
 *   via test/helpers/temporal.ts). Found from the import graph, so a new test that reaches the
 *   dev server lands here by itself. Only this project has the global setup that boots the server
 *   and builds the workflow bundle (test/globalSetup.ts).
 * - `services`: everything else: tests that start their own PGlite, PostgreSQL, OpenSearch, HTTP
 *   peers, sandboxes or a dev server of their own, but not the shared one.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/** Pure tests, relative to the repository root (a directory prefix ends in `/`). */
export const PURE_TESTS = [
  'src/core/',
  'src/io/llm/providers.test.ts',
  'src/io/llm/thinkSplitter.test.ts',
  'src/io/net/redirects.test.ts',
  'test/compat/dslShapes.test.ts',
  'test/pipeline/components/compile.test.ts',
  'test/pipeline/components/extractorFields.test.ts',
  'test/pipeline/components/parser.test.ts',
  'test/pipeline/components/titleChunker.test.ts',
  'test/pipeline/components/tokenChunker.test.ts',
  'test/process/shutdownPlan.test.ts',
  'test/security/codeExecSeccomp.test.ts',
  'test/security/netGuard.test.ts',
  'test/tools/toolCatalog.test.ts',
  'test/ui/layout.test.ts',
  'test/ui/runModel.test.ts',
  'test/versioning/buildId.test.ts',
  'test/tiers.test.ts',
  'test/skipReasons.test.ts',
  'test/docs/',
];

export interface Tiers {
  pure: string[];
  services: string[];
  temporal: string[];
}

const TEST_ROOTS = ['src', 'test'];
/** Relative module specifiers in static imports, re-exports and dynamic imports. */
const RELATIVE_IMPORT = /(?:from\s*|import\s*\(\s*|import\s+)['"](\.{1,2}\/[^'"]+)['"]/g;
/** A call of vitest's inject() with a key: a use of the global setup's provided values. */
const USES_SHARED_SERVER = /\binject\(\s*['"]/;

/** Sorts every test file under src/ and test/ into its tier; paths relative to `root`. */
export function sortTests(root: string): Tiers {
  const tests = TEST_ROOTS.flatMap((dir) => testFiles(root, dir));
  const needsServer = modulesReachingSharedServer(tests.map((file) => path.join(root, file)));
  const tiers: Tiers = { pure: [], services: [], temporal: [] };
  for (const file of tests) {
    const temporal = needsServer.has(path.join(root, file));
    const pure = PURE_TESTS.some((entry) => (entry.endsWith('/') ? file.startsWith(entry) : file === entry));
    if (pure && temporal) {
      throw new Error(`${file} is listed as a pure test (PURE_TESTS in vitest.config.ts) but reaches the shared Temporal dev server through inject()`);
    }
    tiers[temporal ? 'temporal' : pure ? 'pure' : 'services'].push(file);
  }
  return tiers;
}

function testFiles(root: string, dir: string): string[] {
  return readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.test.ts') && !name.split(path.sep).includes('node_modules'))
    .map((name) => path.posix.join(dir, name.split(path.sep).join('/')))
    .sort();
}

/**
 * Every module, from `entries` down through this repository's imports, that calls vitest's
 * inject() or imports (at any depth) a module that does: the graph is read once, then walked
 * backwards from the modules that call inject().
 */
function modulesReachingSharedServer(entries: string[]): Set<string> {
  const importers = new Map<string, string[]>();
  const reaching = new Set<string>();
  const pending = [...entries];
  const seen = new Set(pending);
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    const text = readFileSync(file, 'utf8');
    if (USES_SHARED_SERVER.test(text)) reaching.add(file);
    for (const match of text.matchAll(RELATIVE_IMPORT)) {
      const target = resolveModule(file, match[1] ?? '');
      if (!target) continue;
      importers.set(target, [...(importers.get(target) ?? []), file]);
      if (!seen.has(target)) {
        seen.add(target);
        pending.push(target);
      }
    }
  }
  const backwards = [...reaching];
  for (let file = backwards.pop(); file !== undefined; file = backwards.pop()) {
    for (const importer of importers.get(file) ?? []) {
      if (!reaching.has(importer)) {
        reaching.add(importer);
        backwards.push(importer);
      }
    }
  }
  return reaching;
}

function resolveModule(from: string, specifier: string): string | undefined {
  const base = path.resolve(path.dirname(from), specifier);
  const candidates = [base, `${base}.ts`, base.replace(/\.js$/, '.ts'), path.join(base, 'index.ts')];
  return candidates.find((candidate) => candidate.endsWith('.ts') && existsSync(candidate));
}

const tiers = sortTests(path.dirname(fileURLToPath(import.meta.url)));

// `npx vitest run --project pure` runs the tests that boot nothing, without the Temporal dev
// server; `npm test` runs all three (scripts/run.mjs: pure beside the checks, then the other two together).
export default defineConfig({
  test: {
    pool: 'forks',
    // Integration tests share one Temporal dev server and one PostgreSQL. Three test files at once
    // on two cores: most of a file's time is spent waiting (on the dev server, a child process, a
    // timer), and with the shared PGlite template and workflow bundle a file's own CPU is small
    // (docs/BENCHMARKS.md, "Test suite"). AGENT_CANVAS_TEST_WORKERS overrides it.
    maxWorkers: Number(process.env.AGENT_CANVAS_TEST_WORKERS ?? 3),
    testTimeout: 60_000,
    hookTimeout: 120_000,
    projects: [
      { extends: true, test: { name: 'pure', include: tiers.pure } },
      // Both integration tiers make the PGlite template their empty stores start from (test/storeTemplateSetup.ts).
      { extends: true, test: { name: 'services', include: tiers.services, globalSetup: ['test/storeTemplateSetup.ts'] } },
      // Only this project boots the shared dev server and builds the workflow bundle; vitest runs
      // a project's global setup only when some of its files are selected.
      { extends: true, test: { name: 'temporal', include: tiers.temporal, globalSetup: ['test/storeTemplateSetup.ts', 'test/globalSetup.ts'] } },
    ],
  },
});
