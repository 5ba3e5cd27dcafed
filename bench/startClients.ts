/**
 * The clients of the concurrent-starts benchmark: N streaming completions opened at the same
 * moment and read to their end. By default they run in a worker thread, as real clients run in
 * other processes: in the server's own thread, the clients' connection setup and stream parsing
 * queue behind the runs the server is carrying, and the first event measured the clients' thread
 * as much as the server (BENCH_CLIENTS=main keeps that shape for comparison).
 */
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

export interface StreamTiming {
  firstEvent: number | null;
  finished: number | null;
  error: string | null;
  /** When the first event arrived, ms since the epoch (comparable across threads). */
  firstEventAt: number | null;
}

export interface ClientBurst {
  base: string;
  agentId: string;
  streams: number;
  /** First question number (warm-up and burst ask different questions). */
  from?: number;
}

const epochNow = (): number => performance.timeOrigin + performance.now();

/** One streaming completion, read to its end; times are ms from the request. */
export async function timeStream(base: string, agentId: string, i: number): Promise<StreamTiming> {
  const t = performance.now();
  const timing: StreamTiming = { firstEvent: null, finished: null, error: null, firstEventAt: null };
  try {
    const res = await fetch(`${base}/api/v1/agents/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer bench-key', 'content-type': 'application/json' },
      body: JSON.stringify({ agent_id: agentId, query: `question ${i}`, stream: true }),
    });
    if (!res.ok || !res.body) return { ...timing, error: `HTTP ${res.status}` };
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buf = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += decoder.decode(value, { stream: true });
      if (timing.firstEvent === null && buf.includes('data:')) {
        timing.firstEvent = performance.now() - t;
        timing.firstEventAt = epochNow();
      }
      if (timing.finished === null && buf.includes('"event":"workflow_finished"')) timing.finished = performance.now() - t;
    }
    if (timing.finished === null) timing.error = buf.includes('"code":') ? 'stream ended with an error' : 'stream ended before workflow_finished';
  } catch (err) {
    timing.error = err instanceof Error ? err.message : String(err);
  }
  return timing;
}

function burst(b: ClientBurst): Promise<StreamTiming[]> {
  return Promise.all(Array.from({ length: b.streams }, (_, i) => timeStream(b.base, b.agentId, (b.from ?? 0) + i)));
}

/** Runs the burst in this thread, or in a worker thread of its own. */
export async function runClients(b: ClientBurst, where: 'thread' | 'main'): Promise<StreamTiming[]> {
  if (where === 'main') return burst(b);
  // A worker thread does not inherit the parent's TypeScript loader: it registers tsx first.
  const [tsx, self] = [import.meta.resolve('tsx/esm/api'), import.meta.url].map((u) => JSON.stringify(u));
  const worker = new Worker(`import(${tsx}).then((tsx) => { tsx.register(); return import(${self}); })`, { eval: true, workerData: b });
  try {
    return await new Promise<StreamTiming[]>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`client thread exited with ${code}`)));
    });
  } finally {
    await worker.terminate();
  }
}

if (!isMainThread && parentPort) {
  const port = parentPort;
  void burst(workerData as ClientBurst).then((timings) => port.postMessage(timings));
}
