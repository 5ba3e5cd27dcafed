import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { sortTests } from './test/tiers';

const tiers = sortTests(path.dirname(fileURLToPath(import.meta.url)));

// Three projects (test/tiers.ts says which test goes where): `npx vitest run --project pure` runs
// the tests that boot nothing, without the Temporal dev server; `npm test` runs all three.
export default defineConfig({
  test: {
    pool: 'forks',
    // Integration tests share one Temporal dev server and one PostgreSQL; two cores.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    projects: [
      { extends: true, test: { name: 'pure', include: tiers.pure } },
      { extends: true, test: { name: 'services', include: tiers.services } },
      // Only this project boots the shared dev server and builds the workflow bundle; vitest runs
      // a project's global setup only when some of its files are selected.
      { extends: true, test: { name: 'temporal', include: tiers.temporal, globalSetup: ['test/globalSetup.ts'] } },
    ],
  },
});
