/**
 * The bundled form example (examples/table_booking_form.json), loaded as `npm start` loads the
 * examples: a run of it pauses with `user_inputs` (its fields and rendered tips), a bad answer is
 * refused by field, and a good one resumes it to a confirmation made from the answers. No model.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadExamples } from '../../server/boot/examples';
import { api, parseSse, startHarness, TENANT, type Harness } from '../helpers/appHarness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.close());

const TITLE = 'Table booking form (no model)';

async function completion(body: Record<string, unknown>) {
  const res = await api(h, 'POST', '/api/v1/agents/chat/completions', { body: { stream: true, ...body } });
  expect(res.status, res.text).toBe(200);
  return parseSse(res.text)
    .filter((m) => m.json)
    .map((m) => m.json!);
}

describe('the table booking example', () => {
  it('is loaded with the examples, pauses at its form, and confirms the booking with the answers', async () => {
    expect(await loadExamples(h.store, TENANT, path.resolve(__dirname, '../..'))).toContain(TITLE);
    const canvas = await h.store.canvases.findByTitle(TENANT, TITLE);
    expect(canvas).not.toBeNull();

    const first = await completion({ agent_id: canvas!.id, query: 'a birthday dinner' });
    const ask = first.at(-1)!;
    expect(ask.event).toBe('user_inputs');
    expect(ask.data).toMatchObject({
      tips: 'Booking for: a birthday dinner. Please fill in the details; the run waits here until you do.',
      inputs: {
        name: { type: 'line', optional: false },
        guests: { type: 'integer', optional: false },
        seating: { type: 'options', options: ['indoors', 'terrace', 'no preference'] },
        requests: { type: 'paragraph', optional: true },
      },
    });
    const sessionId = String(ask.session_id);

    const refused = await api(h, 'POST', '/api/v1/agents/chat/completions', {
      body: {
        agent_id: canvas!.id,
        session_id: sessionId,
        stream: true,
        inputs: { name: { value: 'Ada' }, guests: { value: 'six' }, seating: { value: 'roof' } },
      },
    });
    expect(refused.status).toBe(400);
    expect((refused.body as { data: { errors: Array<{ path: string }> } }).data.errors.map((e) => e.path)).toEqual(['$.inputs.guests', '$.inputs.seating']);

    const answered = await completion({
      agent_id: canvas!.id,
      session_id: sessionId,
      inputs: { name: { value: 'Ada' }, guests: { value: 6 }, seating: { value: 'terrace' }, requests: { value: 'A cake at nine.' } },
    });
    expect(answered.at(-1)!.event).toBe('workflow_finished');
    const text = answered
      .filter((e) => e.event === 'message')
      .map((e) => (e.data as { content: string }).content)
      .join('');
    expect(text).toBe('Booked: a table for 6 under Ada (terrace), for a birthday dinner. Requests: A cake at nine.');
  });
});
