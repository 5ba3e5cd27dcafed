/**
 * An OpenAI chat completion stream of a run's events, fresh or resumed. OpenAI's chunks only add
 * text, so a retried model call (a `message_retry`: the worker died mid-answer and the call ran
 * again) cannot take back what the client already holds, as our own SSE does with
 * `discard_chars`. Instead the retry's text is matched against what this client holds of that
 * stream slot and only what goes past it is sent: a model that answers the same again (a
 * deterministic one, the scripted test model, temperature 0) joins without a gap or a repeat; a
 * retry that words its answer differently continues from where the two part.
 */
import { isEvent } from '../../src/core/engine/runEvents';
import type { EventCursor, StoredEvent, Store } from '../../src/io/store/contract';

/** The text of a `message` event as an OpenAI delta (thinking marks as `<think>` tags). */
function pieceOf(e: StoredEvent): string {
  if (!isEvent(e, 'message')) return '';
  return e.data.start_to_think ? '<think>' : e.data.end_to_think ? '</think>' : typeof e.data.content === 'string' ? e.data.content : '';
}

/** What one client holds of each stream slot, and what a retry of the slot must repeat before anything new is sent. */
export class RetryJoin {
  private readonly held = new Map<number, string>();
  private readonly echo = new Map<number, string>();

  /** The text of `e` to send this client ('' for none). */
  text(e: StoredEvent): string {
    if (e.event === 'message_retry') {
      // The retry starts its slot again: its text is the held text until it goes past it.
      const held = this.held.get(e.seq) ?? '';
      if (held) this.echo.set(e.seq, held);
      return '';
    }
    const piece = pieceOf(e);
    if (!piece || e.sub === 0) return piece;
    let rest = piece;
    const echo = this.echo.get(e.seq);
    if (echo) {
      let same = 0;
      while (same < rest.length && same < echo.length && rest[same] === echo[same]) same += 1;
      const diverged = same < rest.length && same < echo.length;
      rest = rest.slice(same);
      if (diverged || same >= echo.length) this.echo.delete(e.seq);
      else this.echo.set(e.seq, echo.slice(same));
    }
    if (rest) this.held.set(e.seq, (this.held.get(e.seq) ?? '') + rest);
    return rest;
  }
}

/**
 * The join of a client resuming at `after`: it holds what it was sent of the cursor's stream
 * slot up to the cursor (superseded attempts included), replayed here without sending.
 */
export async function joinFor(store: Store, runId: string, after: EventCursor | null): Promise<RetryJoin> {
  const join = new RetryJoin();
  if (after && after.sub > 0) for (const e of await store.events.slotUpTo(runId, after)) join.text(e);
  return join;
}
