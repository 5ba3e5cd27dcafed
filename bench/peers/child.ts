/**
 * One peer doing one shape of the peers benchmark, in a process of its own (so that its memory is
 * its own): `PEER_JOB` (JSON, a {@link Job}) says which. Prints `RESULT <json>` on its last line;
 * a crash start prints `STARTED` and waits to be killed. Run by bench/peers.ts.
 */
import { callModel, modelClient, stepPrompt, type Peer, type PeerContext } from './contract';
import { PEERS, type PeerName } from './registry';

export type Job =
  | { peer: PeerName; ctx: PeerContext; shape: 'chain'; repeats: number; runs: number; lanes: number }
  | { peer: PeerName; ctx: PeerContext; shape: 'map'; items: number; concurrency: number[] }
  | { peer: PeerName; ctx: PeerContext; shape: 'pause'; count: number }
  | { peer: PeerName; ctx: PeerContext; shape: 'crash-start' | 'crash-recover'; runId: string; nodes: number };

const now = () => performance.timeOrigin + performance.now();
let serial = 0;
const newRunId = (tag: string) => `${tag}-${process.pid}-${++serial}`;

/** Resident memory after a full collection, MiB. */
function settledRss(): number {
  global.gc?.();
  global.gc?.();
  return process.memoryUsage().rss / 2 ** 20;
}

/** Runs `n` jobs over `lanes` loops, each starting its next when its last ended. */
async function lanes(n: number, width: number, job: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, n) }, async () => {
      while (next < n) await job(next++);
    }),
  );
}

async function chainShape(peer: Peer, job: Extract<Job, { shape: 'chain' }>) {
  const timed = async (nodes: number) => {
    const runId = newRunId(`chain${nodes}`);
    const startedAt = now();
    await peer.chain(runId, nodes);
    return { runId, startedAt, ms: now() - startedAt };
  };
  for (let i = 0; i < 3; i++) await timed(5); // warm-up
  const client = modelClient(job.ctx.modelUrl);
  /** The model call alone, through the same client: what a node costs beyond it is the peer's. */
  const raw: number[] = [];
  const one: number[] = [];
  const five: Array<{ runId: string; startedAt: number; ms: number }> = [];
  for (let r = 0; r < job.repeats; r++) {
    const t = now();
    await callModel(client, stepPrompt(newRunId('raw'), 0));
    raw.push(now() - t);
    one.push((await timed(1)).ms);
    five.push(await timed(5));
  }
  const started = now();
  await lanes(job.runs, job.lanes, async () => void (await timed(5)));
  const runsPerSecond = job.runs / ((now() - started) / 1000);
  return { raw, one, five, runsPerSecond };
}

async function mapShape(peer: Peer, job: Extract<Job, { shape: 'map' }>) {
  /** Wall time per concurrency, or why that map failed. */
  const wallMs: Record<number, number | string> = {};
  await peer.map(newRunId('mapwarm'), 4, job.concurrency.at(-1)!);
  for (const c of job.concurrency) {
    const t = now();
    try {
      await peer.map(newRunId(`map${c}`), job.items, c);
      wallMs[c] = now() - t;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      wallMs[c] = message.startsWith('cannot:') ? message : `failed: ${message}`;
    }
  }
  return { wallMs };
}

async function pauseShape(peer: Peer, job: Extract<Job, { shape: 'pause' }>) {
  const batch = 50;
  const inBatches = async (ids: string[], f: (id: string) => Promise<void>) => {
    for (let i = 0; i < ids.length; i += batch) await Promise.all(ids.slice(i, i + batch).map(f));
  };
  const warm = Array.from({ length: 10 }, () => newRunId('pausewarm'));
  await inBatches(warm, (id) => peer.pause(id));
  await inBatches(warm, (id) => peer.resume(id));
  await new Promise((r) => setTimeout(r, 1000));
  const before = settledRss();
  const ids = Array.from({ length: job.count }, () => newRunId('pause'));
  const t0 = now();
  await inBatches(ids, (id) => peer.pause(id));
  const pauseMs = now() - t0;
  await new Promise((r) => setTimeout(r, 1000));
  const after = settledRss();
  const t = now();
  await inBatches(ids, (id) => peer.resume(id));
  return { rssBeforeMiB: before, rssAfterMiB: after, pauseMs, resumeMs: now() - t };
}

async function main(): Promise<void> {
  const job = JSON.parse(process.env.PEER_JOB ?? '') as Job;
  const launched = now();
  const peer = await (await PEERS[job.peer]()).open(job.ctx);
  const openMs = now() - launched;
  let result: unknown;
  if (job.shape === 'chain') result = await chainShape(peer, job);
  else if (job.shape === 'map') result = await mapShape(peer, job);
  else if (job.shape === 'pause') result = await pauseShape(peer, job);
  else if (job.shape === 'crash-start') {
    await peer.startDurably(job.runId, job.nodes);
    process.stdout.write('STARTED\n');
    await new Promise(() => setInterval(() => {}, 60_000)); // lives until the parent kills it
  } else {
    const t = now();
    await peer.recover(job.runId);
    result = { openMs, recoverMs: now() - t };
  }
  await peer.close();
  process.stdout.write(`\nRESULT ${JSON.stringify(result)}\n`);
  process.exit(0);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
