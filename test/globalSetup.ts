/**
 * Global test setup: one real Temporal dev server (in memory, through @temporalio/testing with
 * the CLI the project obtains) and one pre-built workflow bundle, shared by every test file.
 * Test files connect to the server and run their own worker on a unique task queue.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import type { TestProject } from 'vitest/node';
import { obtainTemporalCli } from '../src/io/temporal/cli';
import { WORKFLOW_BUNDLER_OPTIONS, workflowsPath } from '../src/io/temporal/bundle';
import { DEV_SERVER_TUNING } from '../src/io/temporal/devServer';
import { SEARCH_ATTRIBUTE_KEYS } from '../src/core/searchAttributes';

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
    workflowBundlePath: string;
  }
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const log = (line: string) => process.stderr.write(`[test setup] ${line}\n`);
  let env: TestWorkflowEnvironment;
  if (process.env.TEMPORAL_ADDRESS) {
    env = await TestWorkflowEnvironment.createFromExistingServer({ address: process.env.TEMPORAL_ADDRESS });
  } else {
    const cli = await obtainTemporalCli({ projectRoot: root, log });
    env = await TestWorkflowEnvironment.createLocal({
      server: {
        executable: cli ? { type: 'existing-path', path: cli.path } : { type: 'cached-download' },
        searchAttributes: [...SEARCH_ATTRIBUTE_KEYS],
        log: { format: 'pretty', level: 'error' },
        extraArgs: [...DEV_SERVER_TUNING],
      },
    });
  }
  const address = env.connection.options.address ?? '';
  const started = Date.now();
  const bundle = await bundleWorkflowCode({
    workflowsPath: workflowsPath(root),
    ...WORKFLOW_BUNDLER_OPTIONS,
    logger: new DefaultLogger('WARN'),
  });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'agent-canvas-wf-'));
  const bundlePath = path.join(dir, 'workflow-bundle.js');
  writeFileSync(bundlePath, bundle.code);
  log(`Temporal dev server at ${address}; workflow bundle built in ${Date.now() - started} ms`);
  project.provide('temporalAddress', address);
  project.provide('workflowBundlePath', bundlePath);
  // For the server processes tests start through appEnv (test/helpers/appProcess.ts): WORKER_WORKFLOW_BUNDLE.
  process.env.AGENT_CANVAS_TEST_WORKFLOW_BUNDLE = bundlePath;
  return async () => {
    delete process.env.AGENT_CANVAS_TEST_WORKFLOW_BUNDLE;
    await env.teardown();
    rmSync(dir, { recursive: true, force: true });
  };
}
