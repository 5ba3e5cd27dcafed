/**
 * A Message's `auto_play` in the engine: with speech on, a `speak` call for the shown text (cut to
 * SPEAK_MAX_CHARS) into a reserved slot between the text and `message_end`; with speech off (runs
 * started before the feature, in-process runs) no call and a note in the Message's outputs.
 */
import { describe, expect, it } from 'vitest';
import { SPEAK_MAX_CHARS, type SpeakRequest } from '../components/callContracts';
import { TTS_NOT_CONFIGURED } from '../components/Message';
import { compileCanvas } from './compile';
import { resumeRun, startRun } from './run';
import { nodeFinished } from '../../../test/helpers/runEvents';

function canvasWith(content: string) {
  const compiled = compileCanvas({
    components: {
      begin: { obj: { component_name: 'Begin', params: {} }, downstream: ['Message:m'], upstream: [] },
      'Message:m': { obj: { component_name: 'Message', params: { content: [content], auto_play: true } }, downstream: [], upstream: ['begin'] },
    },
  });
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.problems));
  return compiled.canvas;
}

describe('Message auto_play', () => {
  it('asks for speech of the shown text between the text and message_end', () => {
    const canvas = canvasWith('Echo: {sys.query}');
    const first = startRun(canvas, { runId: 'r1', messageId: 'm1', query: 'hi', speech: true }, 1_000);
    expect(first.status).toBe('running');
    expect(first.calls).toHaveLength(1);
    const call = first.calls[0]!;
    expect(call.call.activity).toBe('speak');
    const request = call.call.request as SpeakRequest;
    expect(request.text).toBe('Echo: hi');
    expect(first.events.map((e) => e.event)).not.toContain('message_end');
    const lastText = first.events.filter((e) => e.event === 'message').at(-1)!;
    expect(request.slot.seq).toBeGreaterThan(lastText.seq);

    const next = resumeRun(canvas, first.state, [{ callId: call.callId, ok: true, value: { bytes: 12 } }], 2_000);
    expect(next.status).toBe('finished');
    const end = next.events.find((e) => e.event === 'message_end')!;
    expect(end.seq).toBeGreaterThan(request.slot.seq);
    expect(nodeFinished(next.events, 'Message:m')!.data.outputs.tts).toBe('audio: 12 bytes');
  });

  it('cuts long text and survives a failed speech call', () => {
    const canvas = canvasWith('x'.repeat(SPEAK_MAX_CHARS + 50));
    const first = startRun(canvas, { runId: 'r2', messageId: 'm2', query: '', speech: true }, 1_000);
    const call = first.calls[0]!;
    expect((call.call.request as SpeakRequest).text).toHaveLength(SPEAK_MAX_CHARS);
    const next = resumeRun(canvas, first.state, [{ callId: call.callId, ok: false, error: 'boom' }], 2_000);
    expect(next.status).toBe('finished');
    expect(nodeFinished(next.events, 'Message:m')!.data.outputs.tts).toBe('auto_play failed: boom');
  });

  it('without speech makes no call and notes it', () => {
    const first = startRun(canvasWith('Echo: {sys.query}'), { runId: 'r3', messageId: 'm3', query: 'hi' }, 1_000);
    expect(first.status).toBe('finished');
    expect(first.calls).toHaveLength(0);
    expect(nodeFinished(first.events, 'Message:m')!.data.outputs.tts).toBe(TTS_NOT_CONFIGURED);
  });
});
