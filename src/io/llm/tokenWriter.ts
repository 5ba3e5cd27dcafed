/**
 * Writes a streamed answer into the run's event log as `message` events at the slot the engine
 * reserved: (seq, 1), (seq, 2)... Tokens are batched for a few milliseconds so a fast model does
 * not cost one database write per token, while the first token goes out at once.
 *
 * Every write carries the attempt that makes it; the store refuses it once a newer attempt has
 * claimed the slot (a stalled attempt the server already retried). The writer then stops writing
 * and calls `onRefused`, so the call it belongs to stops streaming (and paying) at once.
 */
import type { StreamTarget } from '../../core/components/callContracts';
import type { EventBody, RunEvent } from '../../core/engine/runEvents';
import { isAppError, type AppError } from '../../errors';
import type { StreamPiece } from './thinkSplitter';
import type { Store } from '../store/contract';

const FLUSH_MS = 25;

export class TokenWriter {
  private sub: number;
  private buffer: RunEvent[] = [];
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();
  private failure: unknown = null;
  private first = true;

  constructor(
    private readonly store: Store,
    private readonly target: StreamTarget,
    startSub: number,
    private readonly attempt: number,
    private readonly onRefused: () => void = () => {},
  ) {
    this.sub = startSub;
  }

  /** The store's refusal when a newer attempt owns the slot (STREAM_SUPERSEDED), else null. */
  get refusal(): AppError | null {
    return isAppError(this.failure, 'STREAM_SUPERSEDED') ? this.failure : null;
  }

  /** Announces that an earlier attempt's tokens were dropped (a retried stream). */
  retryNotice(attempt: number, discardedChars: number): void {
    this.push({ event: 'message_retry', data: { component_id: this.target.componentId, attempt, discard_chars: discardedChars } });
  }

  write(pieces: StreamPiece[]): void {
    for (const p of pieces) {
      if (p.kind === 'think-start') this.push({ event: 'message', data: { content: '', start_to_think: true } });
      else if (p.kind === 'think-end') this.push({ event: 'message', data: { content: '', end_to_think: true } });
      else if (p.text) this.push({ event: 'message', data: { content: p.text } });
    }
  }

  private push(e: EventBody): void {
    // A refused writer writes nothing more: the slot belongs to a newer attempt.
    if (this.refusal) return;
    this.sub += 1;
    this.buffer.push({
      seq: this.target.seq,
      sub: this.sub,
      ...e,
      message_id: this.target.messageId,
      created_at: this.target.createdAt,
      task_id: this.target.runId,
    });
    if (this.first) {
      this.first = false;
      this.flushNow();
    } else if (!this.timer) {
      this.timer = setTimeout(() => this.flushNow(), FLUSH_MS);
    }
  }

  private flushNow(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.buffer.length === 0) return;
    const batch = this.buffer;
    this.buffer = [];
    this.writing = this.writing.then(async () => {
      if (this.refusal) return;
      await this.store.events.appendStream(this.target.runId, { seq: this.target.seq, attempt: this.attempt }, batch).catch((err: unknown) => {
        if (!isAppError(err, 'STREAM_SUPERSEDED')) {
          this.failure ??= err;
          return;
        }
        this.failure = err;
        this.onRefused();
      });
    });
  }

  /** Writes what is buffered and waits for every write; rethrows a failed write. */
  async close(): Promise<void> {
    this.flushNow();
    await this.writing;
    if (this.failure) throw this.failure;
  }

  /** Stops without waiting (cancellation): pending writes still complete in the background. */
  abandon(): void {
    this.flushNow();
  }
}
