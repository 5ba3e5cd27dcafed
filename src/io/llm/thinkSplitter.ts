/**
 * Splits a streamed answer into thinking and answer text. Reasoning arrives either in a separate
 * field (`reasoning_content`, DeepSeek style) or inline between `<think>` and `</think>`, whose
 * tags may be cut across chunks. The output keeps RAGFlow's event shape: a start marker, the
 * thinking text, an end marker, then the answer.
 */
export type StreamPiece = { kind: 'think-start' } | { kind: 'think-end' } | { kind: 'text'; text: string; thinking: boolean };

const OPEN = '<think>';
const CLOSE = '</think>';

export class ThinkSplitter {
  private inThink = false;
  private pending = '';
  /** Answer text without reasoning. */
  answer = '';
  reasoning = '';

  /** Feeds a `reasoning_content` delta. */
  reasoningDelta(text: string): StreamPiece[] {
    if (!text) return [];
    const out: StreamPiece[] = [];
    if (!this.inThink) {
      this.inThink = true;
      out.push({ kind: 'think-start' });
    }
    this.reasoning += text;
    out.push({ kind: 'text', text, thinking: true });
    return out;
  }

  /** Feeds a `content` delta (which may hold `<think>` tags). */
  contentDelta(text: string): StreamPiece[] {
    const out: StreamPiece[] = [];
    let buf = this.pending + text;
    this.pending = '';
    // Reasoning from a separate field ends when the answer starts.
    if (this.inThink && !buf.includes(CLOSE) && this.reasoning && !this.inlineThink) {
      this.inThink = false;
      out.push({ kind: 'think-end' });
    }
    while (buf) {
      const tag = this.inThink ? CLOSE : OPEN;
      const at = buf.indexOf(tag);
      if (at >= 0) {
        this.emit(out, buf.slice(0, at));
        this.inThink = !this.inThink;
        this.inlineThink = this.inThink;
        out.push({ kind: this.inThink ? 'think-start' : 'think-end' });
        buf = buf.slice(at + tag.length);
        continue;
      }
      // Keep a possible partial tag at the end for the next chunk.
      const keep = partialSuffix(buf, tag);
      this.emit(out, buf.slice(0, buf.length - keep));
      this.pending = buf.slice(buf.length - keep);
      buf = '';
    }
    return out;
  }

  /** Flushes what is left at the end of the stream. */
  end(): StreamPiece[] {
    const out: StreamPiece[] = [];
    if (this.pending) this.emit(out, this.pending);
    this.pending = '';
    if (this.inThink) {
      this.inThink = false;
      out.push({ kind: 'think-end' });
    }
    return out;
  }

  private inlineThink = false;

  private emit(out: StreamPiece[], text: string): void {
    if (!text) return;
    if (this.inThink) this.reasoning += text;
    else this.answer += text;
    out.push({ kind: 'text', text, thinking: this.inThink });
  }
}

function partialSuffix(text: string, tag: string): number {
  for (let n = Math.min(tag.length - 1, text.length); n > 0; n--) {
    if (tag.startsWith(text.slice(text.length - n))) return n;
  }
  return 0;
}
