/**
 * The event map describes what recorded runs wrote: every run event found in the replay corpus's
 * histories (test/fixtures/histories, the events the workflows handed to their recording
 * activities, older releases' included) fits it. Typing the contract changed no event on the wire.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectEventsInMap } from '../helpers/runEvents';

const dir = path.resolve(__dirname, '../fixtures/histories');

interface Payload {
  metadata?: { encoding?: string };
  data?: string;
}

/** JSON payloads anywhere in a history, decoded. */
function payloads(node: unknown, out: unknown[] = []): unknown[] {
  if (Array.isArray(node)) node.forEach((n) => payloads(n, out));
  else if (node && typeof node === 'object') {
    const p = node as Payload;
    if (typeof p.data === 'string' && p.metadata?.encoding && Buffer.from(p.metadata.encoding, 'base64').toString() === 'json/plain')
      out.push(JSON.parse(Buffer.from(p.data, 'base64').toString('utf8')));
    else Object.values(node).forEach((n) => payloads(n, out));
  }
  return out;
}

/** Objects shaped like run events ({seq, sub, event, data}) inside a value. */
function runEvents(node: unknown, out: unknown[] = []): unknown[] {
  if (Array.isArray(node)) node.forEach((n) => runEvents(n, out));
  else if (node && typeof node === 'object') {
    const o = node as Record<string, unknown>;
    if (typeof o.event === 'string' && typeof o.seq === 'number' && typeof o.sub === 'number' && 'data' in o) out.push(o);
    else Object.values(o).forEach((n) => runEvents(n, out));
  }
  return out;
}

const histories = readdirSync(dir).filter((f) => f.endsWith('.json'));

describe('recorded run events', () => {
  it('are found in the replay corpus', () => {
    const all = histories.flatMap((f) => runEvents(payloads(JSON.parse(readFileSync(path.join(dir, f), 'utf8')))));
    expect(all.length).toBeGreaterThan(50);
  });

  it.each(histories)('fit the event map: %s', (file) => {
    expectEventsInMap(runEvents(payloads(JSON.parse(readFileSync(path.join(dir, file), 'utf8')))));
  });
});
