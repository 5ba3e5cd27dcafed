/**
 * The replay gate: every stored history of a real run (test/fixtures/histories, recorded with
 * test/replay/record.ts) must replay against the current workflow code. A change that would break
 * runs in flight fails here, naming the history, the SDK's divergence and the first workflow task
 * whose recorded commands the code no longer emits (test/replay/gate.ts).
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { replayStoredHistory } from './gate';

const dir = path.resolve(__dirname, '../fixtures/histories');
const files = readdirSync(dir).filter((f) => f.endsWith('.json'));

/** What the corpus must cover: one history per kind of run the code must keep replaying. */
const REQUIRED = [
  'user-fill-up', // a pause answered through the submitInputs update
  'iteration-and-loop',
  'agent-tools', // parallel tool calls
  'sub-agent', // an Agent as a tool: a child workflow
  'sub-agent-child',
  'invoke-canvas', // another canvas as a child workflow
  'invoke-canvas-child',
  'continue-as-new',
  'continue-as-new-first-execution',
  'cancel-mid-stream',
  'failure',
  'retry-then-succeed',
  'data-components',
  'doc-generator',
  'excel-processor', // a spreadsheet written by the fileTool activity
  'browser', // a Browser node: model rounds around a browserStep activity
  'message-auto-play',
  'finalize-local',
  'announced-start',
  'events-with-call', // step events handed to the step's one activity call; a canvas prepared by the API
  'events-with-call-cancel',
  'revision-2', // RUN_REVISION 2: patched branches taken without markers, no RunStatus upsert at the first step
  'pipeline-ingest', // ingestPipeline: steps over blob references, Extractor batches, commit
  'message-memory-save', // a Message with memory_ids under its patch: memorySave, then memoryExtract
  'memory-extraction', // memoryExtraction: a message added through the API, extracted by the memory's LLM
  'time-travel-replay', // a replay with tools frozen: the tool call answered from the journal by a local activity (patch time-travel-replay)
  'form-remind-escalate', // a paused form's reminder (the sendFormReminder activity) and escalation timers (patch form-remind-escalate)
  'form-remind-answered', // a form answered after a reminder: the next reminder's timer canceled
  'time-travel-fork', // a fork: the source's snapshot loaded by a local activity, then the forked node's call (patch time-travel-fork)
];

beforeAll(() => {
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    // installed already in this process
  }
});

describe('replaying stored histories', () => {
  it('covers every kind of run in the corpus', () => {
    expect(REQUIRED.filter((name) => !files.includes(`${name}.json`))).toEqual([]);
  });

  it.each(files)('replays %s without non-determinism', async (file) => {
    const verdict = await replayStoredHistory(inject('workflowBundlePath'), path.join(dir, file));
    if (!verdict.ok) throw new Error(verdict.report);
  });
});
