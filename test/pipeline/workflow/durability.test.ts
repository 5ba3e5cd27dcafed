/**
 * Durability of an ingestion pipeline: the process running the API and the worker is SIGKILLed
 * while an Extractor works through 300 chunks. After a restart on the same data folder the
 * document finishes, and the scripted model has served every chunk's extraction, each once,
 * except at most the one batch that was in flight (PIPELINE_ITEM_CONCURRENCY=1, 32 items a
 * batch): finished batches are stored results the workflow never asks for again.
 */
import { describe, expect, it } from 'vitest';
import { appProcessSuite } from '../../helpers/appProcessSuite';
import { chunkTextOf, template, type Envelope } from './pipelineKit';

const BATCH = 32;
const CHUNKS = 300;
const MARKDOWN = Array.from({ length: CHUNKS }, (_, i) => `Paragraph ${i} tells how valve ${i} of the pump is checked.`).join('\n\n');

const app = appProcessSuite('pipeline-crash');

/** chunk_summary with a TokenChunker budget that makes one chunk per paragraph. */
function pipelineDsl(): Record<string, unknown> {
  const t = template('chunk_summary') as { dsl: { components: Record<string, { obj: { params: Record<string, unknown> } }> } };
  const chunker = t.dsl.components['TokenChunker:ModernPetsKneel']!.obj.params;
  chunker.chunk_token_size = 8;
  chunker.delimiters = ['\n'];
  return t;
}

describe('a crash during a pipeline Extractor over 300 chunks', () => {
  it('finishes the document after a restart, asking the model for each chunk once (at most one batch again)', { timeout: 600_000 }, async () => {
    const env = app.env({ extra: { PIPELINE_ITEM_BATCH: String(BATCH), PIPELINE_ITEM_CONCURRENCY: '1' } });
    const { base, auth, llm } = app;
    const call = async <T>(method: string, route: string, body?: unknown): Promise<Envelope<T>> => {
      const res = await fetch(`${base}${route}`, { method, headers: auth, body: body === undefined ? undefined : JSON.stringify(body) });
      return (await res.json()) as Envelope<T>;
    };
    // A little latency per call so the kill lands mid-Extractor on any machine.
    llm.when((c) => (/summarizer/i.test(String(c.body.messages[0]?.content)) ? { content: `S: ${chunkTextOf(c).slice(0, 40)}`, delayMs: 15 } : undefined));

    const child = await app.start(env);
    const pipeline = await call<{ id: string }>('POST', '/api/v1/agents', { title: 'crash pipeline', dsl: pipelineDsl(), canvas_category: 'dataflow_canvas' });
    expect(pipeline.code, JSON.stringify(pipeline)).toBe(0);
    const dataset = await call<{ id: string }>('POST', '/api/v1/datasets', { name: 'crash ds', parse_type: 2, pipeline_id: pipeline.data.id });
    expect(dataset.code, JSON.stringify(dataset)).toBe(0);
    const form = new FormData();
    form.append('file', new Blob([new TextEncoder().encode(MARKDOWN)]), 'pump.md');
    form.append('parse', 'true');
    const uploaded = (await (
      await fetch(`${base}/api/v1/datasets/${dataset.data.id}/documents`, { method: 'POST', headers: { authorization: auth.authorization }, body: form })
    ).json()) as Envelope<Array<{ id: string }>>;
    expect(uploaded.code).toBe(0);

    await llm.waitForCalls(100, 300_000);
    await child.kill();
    const atKill = llm.calls.length;
    expect(atKill).toBeLessThan(CHUNKS); // the kill landed mid-Extractor

    await app.start(env);
    const until = Date.now() + 400_000;
    let doc: { run: string; chunk_count: number; progress_msg: string } | undefined;
    while (Date.now() < until) {
      const list = await call<{ docs: Array<{ run: string; chunk_count: number; progress_msg: string }> }>(
        'GET',
        `/api/v1/datasets/${dataset.data.id}/documents`,
      );
      doc = list.data.docs[0];
      if (doc && doc.run !== 'RUNNING' && doc.run !== 'UNSTART') break;
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(doc?.run, doc?.progress_msg).toBe('DONE');
    expect(doc?.chunk_count).toBe(CHUNKS);

    const perChunk = new Map<string, number>();
    for (const c of llm.calls) perChunk.set(chunkTextOf(c), (perChunk.get(chunkTextOf(c)) ?? 0) + 1);
    expect(perChunk.size).toBe(CHUNKS); // every chunk's extraction was served
    const repeated = [...perChunk.values()].reduce((n, v) => n + v - 1, 0);
    console.log(`[pipeline durability] ${llm.calls.length} model calls for ${CHUNKS} chunks; killed after ${atKill}; ${repeated} repeated`);
    expect(repeated).toBeLessThanOrEqual(BATCH);
  });
});
