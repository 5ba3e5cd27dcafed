/**
 * Determinism guard: stored histories of real runs (test/fixtures/histories, recorded with
 * test/replay/record.ts) must replay against the current workflow code. A change that would
 * break runs in flight fails here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { describe, expect, inject, it } from 'vitest';

const dir = path.resolve(__dirname, '../fixtures/histories');
const files = readdirSync(dir).filter((f) => f.endsWith('.json'));

describe('replaying stored histories', () => {
  it('has histories to replay', () => {
    expect(files.length).toBeGreaterThanOrEqual(3);
  });

  it.each(files)('replays %s without non-determinism', async (file) => {
    try {
      Runtime.install({ logger: new DefaultLogger('ERROR') });
    } catch {
      // installed already in this process
    }
    const history = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as {
      events: Array<{ workflowExecutionStartedEventAttributes?: { workflowId?: string } }>;
    };
    // The original id: workflow code derives ids from it (a sub-agent's child workflow id).
    const workflowId = history.events[0]?.workflowExecutionStartedEventAttributes?.workflowId ?? `replay-${file}`;
    await Worker.runReplayHistory({ workflowBundle: { codePath: inject('workflowBundlePath') } }, history, workflowId);
  });
});
