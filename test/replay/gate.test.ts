/**
 * The gate can fail: a stored history replayed against a deliberately changed workflow bundle
 * (test/versioning/changedWorkflows.ts: canvas runs start a timer first) is reported with the
 * history's file name, the SDK's non-determinism text and the first divergent workflow task.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger, Runtime } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { WORKFLOW_BUNDLER_OPTIONS } from '../../src/io/temporal/bundle';
import { replayStoredHistory } from './gate';

const histories = path.resolve(__dirname, '../fixtures/histories');
let dir: string;
let changedBundle: string;

beforeAll(async () => {
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    // installed already in this process
  }
  const bundle = await bundleWorkflowCode({
    workflowsPath: path.resolve(__dirname, '../versioning/changedWorkflows.ts'),
    ...WORKFLOW_BUNDLER_OPTIONS,
    logger: new DefaultLogger('WARN'),
  });
  dir = mkdtempSync(path.join(os.tmpdir(), 'agent-canvas-changed-'));
  changedBundle = path.join(dir, 'workflow-bundle.js');
  writeFileSync(changedBundle, bundle.code);
}, 300_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the replay gate', () => {
  it('fails a history the changed code no longer reproduces, naming the file, the divergence and the recorded commands', async () => {
    const verdict = await replayStoredHistory(changedBundle, path.join(histories, 'user-fill-up.json'));
    process.stdout.write(`${verdict.report}\n`);
    expect(verdict.ok).toBe(false);
    expect(verdict.report).toContain('history user-fill-up.json does not replay');
    expect(verdict.report).toMatch(/SDK: .*[Nn]ondeterminism/);
    // The first task recorded a local activity (the run's first events) where the changed code starts a timer.
    expect(verdict.report).toContain('First divergent workflow task: #1');
    expect(verdict.report).toMatch(/event 5 MarkerRecorded core_local_activity/);
  }, 120_000);

  it('passes the same history on the released code (the change, not the history, is what fails)', async () => {
    expect(await replayStoredHistory(inject('workflowBundlePath'), path.join(histories, 'user-fill-up.json'))).toEqual({ file: 'user-fill-up.json', ok: true });
  }, 120_000);
});
