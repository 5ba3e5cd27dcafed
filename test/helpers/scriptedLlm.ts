/**
 * A scripted OpenAI-compatible model server, a real HTTP peer reached through the `openai` package:
 * a test programs the answers (text, errors, a hang) and reads what was sent, calls and hang-ups.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { localEmbedding } from '../../src/io/text/localEmbedding';
import { chunk, completion, roughTokens, sse, tokenize, type WireToolCall, type WireUsage } from '../../src/io/llm/openaiWire';
import { answerTranscription, hasImage, type TranscriptionCall } from './scriptedMedia';

export type Reply =
  /** A normal answer, streamed in pieces of `chunkWords` words `delayMs` apart. */
  | { content: string; reasoning?: string; chunkWords?: number; delayMs?: number; usage?: { prompt_tokens: number; completion_tokens: number } }
  /** Tool calls (function calling). */
  | { toolCalls: WireToolCall[]; content?: string }
  /** An HTTP error (with a `Retry-After` of `retryAfter` seconds when given). */
  | { status: number; message?: string; retryAfter?: number }
  /** Streams `content` then never finishes, until the client goes away. */
  | { hang: true; content?: string; chunkWords?: number; delayMs?: number }
  /**
   * Streams `content`, then ends the response cleanly without a `finish_reason` (nor usage or
   * `[DONE]`): a stream a provider or proxy cut off. The client sees a normal end.
   */
  | { cut: true; content: string; chunkWords?: number; delayMs?: number }
  /** Holds the request open until `until` settles, then answers with `then`. */
  | { until: Promise<unknown>; then: Reply };

export interface RecordedCall {
  body: { model: string; messages: Array<{ role: string; content: unknown }>; stream?: boolean; [k: string]: unknown };
  /** The client closed the connection before the reply ended. */
  aborted: boolean;
  startedAt: number;
  endedAt: number | null;
}

export type Responder = (call: RecordedCall, index: number) => Reply | undefined;

/** A request to `/audio/speech` (text to speech). */
export interface SpeechCall {
  body: { model: string; input: string; voice: string; [k: string]: unknown };
}

/** What `/audio/speech` answers unless a test sets `speechAudio`: a tiny WAV header and a few samples. */
export const SCRIPTED_SPEECH_AUDIO = Buffer.concat([
  Buffer.from('RIFF', 'ascii'),
  Buffer.from([0x2c, 0, 0, 0]),
  Buffer.from('WAVEfmt ', 'ascii'),
  Buffer.from([16, 0, 0, 0, 1, 0, 1, 0, 0x40, 0x1f, 0, 0, 0x80, 0x3e, 0, 0, 2, 0, 16, 0]),
  Buffer.from('data', 'ascii'),
  Buffer.from([8, 0, 0, 0, 0, 0, 0xff, 0x7f, 0, 0, 0x01, 0x80]),
]);

export class ScriptedLlm {
  /** Requests to `/audio/transcriptions`, in order (they are not chat calls). */
  readonly transcriptionCalls: TranscriptionCall[] = [];
  /** What `/audio/transcriptions` answers, given the uploaded file's name. */
  transcript: (fileName: string) => string = (fileName) => `Scripted transcript of ${fileName}.`;
  /** When set, chat calls carrying an image are answered with this (before any responder), as a vision model would. */
  imageDescription: ((call: RecordedCall) => string) | null = null;
  readonly calls: RecordedCall[] = [];
  /** Requests to `/audio/speech`, in order (they are not chat calls). */
  readonly speechCalls: SpeechCall[] = [];
  /** The bytes `/audio/speech` answers. */
  speechAudio: Buffer = SCRIPTED_SPEECH_AUDIO;
  private queue: Reply[] = [];
  private responders: Responder[] = [];
  private server: Server | null = null;
  private open = 0;
  /** The usage this server reported, one entry per answer that carried it (what a ledger must add up to). */
  readonly usageSent: Array<WireUsage & { model: string }> = [];
  /** Highest number of requests open at the same time. */
  maxConcurrent = 0;
  private abortWaiters: Array<() => void> = [];
  private callWaiters: Array<{ n: number; resolve: () => void }> = [];

  /** Base URL for `LLM_BASE_URL` (…/v1). */
  url = '';

  /** Queues replies used in order by calls no responder answered. */
  reply(...replies: Reply[]): this {
    this.queue.push(...replies);
    return this;
  }

  /** Adds a responder consulted before the queue; the first that returns a reply wins. */
  when(responder: Responder): this {
    this.responders.push(responder);
    return this;
  }

  /** Answers calls whose system or user text contains `needle` with `reply` (every time). */
  whenPromptIncludes(needle: string, reply: Reply | ((call: RecordedCall) => Reply)): this {
    return this.when((call) =>
      call.body.messages.some((m) => typeof m.content === 'string' && m.content.includes(needle))
        ? typeof reply === 'function'
          ? reply(call)
          : reply
        : undefined,
    );
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** Resolves when some call has been aborted by the client. */
  waitForAbort(timeoutMs = 10_000): Promise<void> {
    if (this.calls.some((c) => c.aborted)) return Promise.resolve();
    return withTimeout(new Promise<void>((resolve) => this.abortWaiters.push(resolve)), timeoutMs, 'no call was aborted');
  }

  /** Resolves when at least `n` calls have arrived. */
  waitForCalls(n: number, timeoutMs = 30_000): Promise<void> {
    if (this.calls.length >= n) return Promise.resolve();
    return withTimeout(new Promise<void>((resolve) => this.callWaiters.push({ n, resolve })), timeoutMs, `fewer than ${n} calls arrived`);
  }

  private pick(call: RecordedCall, index: number): Reply {
    if (this.imageDescription && hasImage(call)) return { content: this.imageDescription(call) };
    for (const r of this.responders) {
      const reply = r(call, index);
      if (reply) return reply;
    }
    return this.queue.shift() ?? { content: 'scripted default answer' };
  }

  private async speech(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await new Promise<string>((resolve) => {
      let data = '';
      req.on('data', (c: Buffer) => (data += c.toString('utf8')));
      req.on('end', () => resolve(data));
    });
    this.speechCalls.push({ body: JSON.parse(raw) as SpeechCall['body'] });
    res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': this.speechAudio.length }).end(this.speechAudio);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method === 'POST' && req.url?.endsWith('/audio/transcriptions')) return answerTranscription(req, res, this);
    if (req.method === 'POST' && req.url?.endsWith('/embeddings')) return this.embeddings(req, res);
    if (req.method === 'POST' && req.url?.endsWith('/audio/speech')) return this.speech(req, res);
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      res.writeHead(404).end();
      return;
    }
    const raw = await new Promise<string>((resolve) => {
      let data = '';
      req.on('data', (c: Buffer) => (data += c.toString('utf8')));
      req.on('end', () => resolve(data));
    });
    const call: RecordedCall = { body: JSON.parse(raw) as RecordedCall['body'], aborted: false, startedAt: Date.now(), endedAt: null };
    const index = this.calls.push(call) - 1;
    for (const w of this.callWaiters.filter((w) => this.calls.length >= w.n)) w.resolve();
    this.callWaiters = this.callWaiters.filter((w) => this.calls.length < w.n);
    this.open += 1;
    this.maxConcurrent = Math.max(this.maxConcurrent, this.open);
    let finished = false;
    res.on('close', () => {
      this.open -= 1;
      call.endedAt = Date.now();
      if (!finished) {
        call.aborted = true;
        for (const w of this.abortWaiters.splice(0)) w();
      }
    });
    let reply = this.pick(call, index);
    while ('until' in reply) {
      const held = reply;
      // Nothing is sent until the test releases the request (or the client hangs up).
      await Promise.race([held.until, new Promise((resolve) => res.on('close', resolve))]);
      if (res.destroyed) return;
      reply = held.then;
    }
    await this.respond(call, reply, res);
    finished = true;
    if (!res.writableEnded) res.end();
  }

  /** Texts sent to `/embeddings`, in order (the model name with each batch). */
  readonly embeddingCalls: Array<{ model: string; input: string[] }> = [];

  /**
   * OpenAI's embeddings endpoint: a deterministic 64-dimensional embedding per text (the offline
   * hashed embedding folded), so search through the endpoint behaves like search without it.
   */
  private async embeddings(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let raw = '';
    for await (const c of req) raw += (c as Buffer).toString('utf8');
    const body = JSON.parse(raw) as { model: string; input: string | string[] };
    const input = Array.isArray(body.input) ? body.input : [body.input];
    this.embeddingCalls.push({ model: body.model, input });
    const data = input.map((text, index) => {
      const full = localEmbedding(text);
      const folded = Array.from({ length: 64 }, (_, i) => full.filter((_, j) => j % 64 === i).reduce((a, b) => a + b, 0));
      return { object: 'embedding', index, embedding: folded };
    });
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ object: 'list', model: body.model, data, usage: { prompt_tokens: input.length, total_tokens: input.length } }));
  }

  private async respond(call: RecordedCall, reply: Exclude<Reply, { until: Promise<unknown> }>, res: ServerResponse): Promise<void> {
    const id = `chatcmpl-${this.calls.length}`;
    const model = call.body.model;
    const created = Math.floor(Date.now() / 1000);
    if ('status' in reply) {
      res
        .writeHead(reply.status, { 'content-type': 'application/json', ...(reply.retryAfter !== undefined ? { 'retry-after': String(reply.retryAfter) } : {}) })
        .end(JSON.stringify({ error: { message: reply.message ?? `scripted HTTP ${reply.status}`, type: 'scripted' } }));
      return;
    }
    const prompt = call.body.messages.reduce((n, m) => n + roughTokens(String(m.content ?? '')), 0);
    if ('toolCalls' in reply) {
      const usage = { prompt_tokens: prompt, completion_tokens: 10, total_tokens: prompt + 10 };
      if (!call.body.stream) {
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify(completion(id, model, created, reply.content ?? '', usage, {}, reply.toolCalls)));
        this.usageSent.push({ ...usage, model });
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      reply.toolCalls.forEach((t, i) => {
        res.write(
          sse(
            chunk(id, model, created, {
              role: 'assistant',
              tool_calls: [{ index: i, id: t.id, type: 'function', function: { name: t.name, arguments: t.arguments } }],
            }),
          ),
        );
      });
      res.write(sse(chunk(id, model, created, {}, 'tool_calls')));
      res.write(sse(chunk(id, model, created, {}, null, usage)));
      this.usageSent.push({ ...usage, model });
      res.end(sse('[DONE]'));
      return;
    }
    const content = reply.content ?? '';
    const completionTokens = roughTokens(content);
    const usage =
      'usage' in reply && reply.usage
        ? { ...reply.usage, total_tokens: reply.usage.prompt_tokens + reply.usage.completion_tokens }
        : { prompt_tokens: prompt, completion_tokens: completionTokens, total_tokens: prompt + completionTokens };
    if (!call.body.stream && !('hang' in reply)) {
      const extra = 'reasoning' in reply && reply.reasoning ? { reasoning_content: reply.reasoning } : {};
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(completion(id, model, created, content, usage, extra)));
      this.usageSent.push({ ...usage, model });
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.flushHeaders();
    const delay = 'delayMs' in reply ? (reply.delayMs ?? 0) : 0;
    if ('reasoning' in reply && reply.reasoning) res.write(sse(chunk(id, model, created, { role: 'assistant', reasoning_content: reply.reasoning })));
    for (const piece of tokenize(content, 'chunkWords' in reply ? (reply.chunkWords ?? 1) : 1)) {
      if (res.destroyed) return;
      res.write(sse(chunk(id, model, created, { content: piece })));
      if (delay > 0) await new Promise((r) => setTimeout(r, delay));
    }
    if ('hang' in reply) {
      await new Promise<void>((resolve) => res.on('close', resolve));
      return;
    }
    if ('cut' in reply) {
      res.end();
      return;
    }
    res.write(sse(chunk(id, model, created, {}, 'stop')));
    res.write(sse(chunk(id, model, created, {}, null, usage)));
    this.usageSent.push({ ...usage, model });
    res.end(sse('[DONE]'));
  }
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(t);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}

export async function startScriptedLlm(): Promise<ScriptedLlm> {
  return new ScriptedLlm().start();
}
