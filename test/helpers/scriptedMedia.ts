/** The scripted model server's media requests: image-carrying chat calls and `/audio/transcriptions` uploads. */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** A request to `/audio/transcriptions` (speech to text), read from its multipart form. */
export interface TranscriptionCall {
  model: string;
  fileName: string;
  bytes: number;
}

/** Whether a chat call carries an image (an `image_url` content part). */
export function hasImage(call: { body: { messages: Array<{ content: unknown }> } }): boolean {
  return call.body.messages.some((m) => Array.isArray(m.content) && m.content.some((p) => (p as { type?: unknown }).type === 'image_url'));
}

/** The multipart form's `model` and `file` (its name and size). */
export async function readTranscription(req: IncomingMessage): Promise<TranscriptionCall> {
  const parts: Buffer[] = [];
  for await (const c of req) parts.push(c as Buffer);
  const raw = Buffer.concat(parts).toString('latin1');
  const model = /name="model"\r\n\r\n([^\r]*)/.exec(raw)?.[1] ?? '';
  const file = /name="file"; filename="([^"]*)"[\s\S]*?\r\n\r\n([\s\S]*?)\r\n--/.exec(raw);
  return { model, fileName: file?.[1] ?? '', bytes: file?.[2]?.length ?? 0 };
}

/** OpenAI's `/audio/transcriptions`: the call recorded, `{text}` answered with the server's transcript of the file. */
export async function answerTranscription(
  req: IncomingMessage,
  res: ServerResponse,
  server: { transcriptionCalls: TranscriptionCall[]; transcript: (fileName: string) => string },
): Promise<void> {
  const call = await readTranscription(req);
  server.transcriptionCalls.push(call);
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ text: server.transcript(call.fileName) }));
}
