/**
 * A Message's `auto_play` (RAGFlow's TTS) in real runs on the Temporal dev server: with TTS_MODEL
 * set, the Message's text goes to the scripted server's `/audio/speech` and the audio comes back
 * as a `message` event `{content: "", audio_binary: <hex>}` after the text and before
 * `message_end`; without it, no speech request and a note in the Message's outputs.
 */
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchRun, type LaunchDeps } from '../../api/services/runLauncher';
import { openStore } from '../../src/io/store/store';
import type { Store } from '../../src/io/store/contract';
import { TTS_NOT_CONFIGURED } from '../../src/core/components/Message';
import { DEFAULT_RUN_SETTINGS, type CanvasRunResult } from '../../workflows/definitions';
import { dsl } from '../helpers/canvasKit';
import { SCRIPTED_SPEECH_AUDIO, startScriptedLlm, type ScriptedLlm } from '../helpers/scriptedLlm';
import { connectTemporal, startWorker, type RunningWorker, type TemporalHandles } from '../helpers/temporal';
import { nodeFinished } from '../helpers/runEvents';
import { expectEventsInMap } from '../helpers/runEvents';

let store: Store;
let llm: ScriptedLlm;
let temporal: TemporalHandles;
let speaking: RunningWorker;
let silent: RunningWorker;
const tenantId = 'tenant-auto-play';

beforeAll(async () => {
  [store, llm, temporal] = await Promise.all([openStore({}), startScriptedLlm(), connectTemporal()]);
  await store.tenants.ensure(tenantId, 'auto_play tests');
  [speaking, silent] = await Promise.all([
    startWorker({ nativeConnection: temporal.nativeConnection, store, llmBaseUrl: llm.url, env: { TTS_MODEL: 'tts-1@OpenAI', TTS_VOICE: 'nova' } }),
    startWorker({ nativeConnection: temporal.nativeConnection, store, llmBaseUrl: llm.url }),
  ]);
});

afterAll(async () => {
  await Promise.all([speaking?.stop(), silent?.stop()]);
  await Promise.all([temporal?.close(), llm?.stop(), store?.close()]);
});

async function run(worker: RunningWorker, canvas: Record<string, unknown>, query: string) {
  const deps: LaunchDeps = { store, client: temporal.client, taskQueue: worker.taskQueue, settings: { ...DEFAULT_RUN_SETTINGS } };
  const saved = await store.canvases.create({ tenantId, title: `auto_play ${Date.now()} ${Math.random()}`, dsl: canvas });
  const launched = await launchRun(deps, { tenantId, canvas: saved, sessionId: null, query, inputs: null, files: [], userId: 'u1', session: null });
  const handle = temporal.client.workflow.getHandle(launched.workflowId);
  const result = (await handle.result()) as CanvasRunResult;
  const events = await store.events.list(launched.runId, null, 10_000);
  expectEventsInMap(events);
  const fetched = await handle.fetchHistory();
  return { result, events, history: JSON.stringify(fetched), fetched, workflowId: launched.workflowId };
}

/** How many times a history marks the auto_play patch (a patch marker's data names its patch id). */
function patchMarkers(history: unknown): number {
  const events = (history as { events?: Array<{ markerRecordedEventAttributes?: { markerName?: string | null; details?: unknown } | null }> }).events ?? [];
  return events.filter((e) => {
    const m = e.markerRecordedEventAttributes;
    if (m?.markerName !== 'core_patch') return false;
    const payloads = (m.details as Record<string, { payloads?: Array<{ data?: Uint8Array | string }> }> | undefined)?.['patch-data']?.payloads ?? [];
    return payloads.some((p) =>
      (typeof p.data === 'string' ? Buffer.from(p.data, 'base64') : Buffer.from(p.data ?? [])).toString('utf8').includes('message-auto-play'),
    );
  }).length;
}

const autoPlayCanvas = (autoPlay: boolean) =>
  dsl({
    begin: { name: 'Begin', downstream: ['Message:m'] },
    'Message:m': { name: 'Message', params: { content: ['You said: {sys.query}'], auto_play: autoPlay } },
  });

describe('Message auto_play', () => {
  it('speaks the Message text through /audio/speech and emits the audio as hex after the text', async () => {
    const before = llm.speechCalls.length;
    const r = await run(speaking, autoPlayCanvas(true), 'hello there');
    expect(r.result.status).toBe('finished');
    const calls = llm.speechCalls.slice(before);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.body).toMatchObject({ model: 'tts-1', input: 'You said: hello there', voice: 'nova' });

    const names = r.events.map((e) => e.event);
    const audioAt = r.events.findIndex((e) => e.event === 'message' && 'audio_binary' in e.data);
    expect(audioAt).toBeGreaterThan(-1);
    expect(r.events[audioAt]!.data).toEqual({ content: '', audio_binary: SCRIPTED_SPEECH_AUDIO.toString('hex') });
    // After the text, before message_end (RAGFlow's order).
    const textAt = r.events.findIndex((e) => e.event === 'message' && e.data.content === 'You said: ');
    expect(textAt).toBeGreaterThan(-1);
    expect(textAt).toBeLessThan(audioAt);
    expect(names.indexOf('message_end')).toBeGreaterThan(audioAt);
    // The audio went straight to the event log, not through workflow history.
    expect(r.history).not.toContain(SCRIPTED_SPEECH_AUDIO.toString('hex'));
    const finished = nodeFinished(r.events, 'Message:m');
    expect(finished!.data.outputs.tts).toBe(`audio: ${SCRIPTED_SPEECH_AUDIO.length} bytes`);
    expect(r.result.content).toBe('You said: hello there');
    // Started by the API at revision 2: the patched branch is taken without a marker (older runs
    // replay theirs: test/fixtures/histories/message-auto-play.json), and the run replays.
    expect(patchMarkers(r.fetched)).toBe(0);
    await Worker.runReplayHistory({ workflowBundle: { codePath: inject('workflowBundlePath') } }, r.fetched, r.workflowId);
  });

  it('without TTS_MODEL makes no speech request and notes it in the Message outputs', async () => {
    const before = llm.speechCalls.length;
    const r = await run(silent, autoPlayCanvas(true), 'quiet please');
    expect(r.result.status).toBe('finished');
    expect(llm.speechCalls.length).toBe(before);
    expect(r.events.some((e) => e.event === 'message' && 'audio_binary' in e.data)).toBe(false);
    const finished = nodeFinished(r.events, 'Message:m');
    expect(finished!.data.outputs.tts).toBe(TTS_NOT_CONFIGURED);
    expect(r.result.content).toBe('You said: quiet please');
  });

  it('a Message without auto_play asks for no speech and records no patch marker', async () => {
    const before = llm.speechCalls.length;
    const r = await run(speaking, autoPlayCanvas(false), 'no audio');
    expect(r.result.status).toBe('finished');
    expect(llm.speechCalls.length).toBe(before);
    expect(patchMarkers(r.fetched)).toBe(0);
    const finished = nodeFinished(r.events, 'Message:m');
    expect(finished!.data.outputs).not.toHaveProperty('tts');
  });
});
