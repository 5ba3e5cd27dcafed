/**
 * Ingestion pipeline benchmark (`npm run bench -- pipeline`): RAGFlow's chunk_summary template
 * (File → Parser → TokenChunker → Extractor → Tokenizer) over a Markdown document of 300
 * paragraphs, one chunk each, against the scripted model answering at once (zero latency), with
 * the offline embedding. Durable: the `ingestPipeline` workflow on a Temporal dev server (payloads
 * as blobs, Extractor batches of 32 with 4 in flight, atomic commit), from start to the document
 * DONE. In-process: the same steps with H1's runPipelineInProcess (no workflow, no store writes
 * between steps, no commit). Prints chunks/s of each (median of BENCH_PIPELINE_REPEATS runs) and
 * the ratio: the price of durability per chunk.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { compilePipeline } from '../src/core/pipeline/compile';
import { datasetEmbeddingModel } from '../src/io/knowledge/embedder';
import { createPipelineServices, runPipelineInProcess } from '../src/io/knowledge/pipeline';
import { llmSettingsFromEnv } from '../src/io/llm/providers';
import { median, printTable, root, runBench, startBenchEnvironment } from './common';

const CHUNKS = Number(process.env.BENCH_PIPELINE_CHUNKS ?? 300);
const REPEATS = Number(process.env.BENCH_PIPELINE_REPEATS ?? 3);
const MARKDOWN = Array.from({ length: CHUNKS }, (_, i) => `Paragraph ${i} tells how valve ${i} of the pump is checked.`).join('\n\n');

function pipelineDsl(): Record<string, unknown> {
  const t = JSON.parse(readFileSync(path.join(root, 'test/fixtures/pipelines/chunk_summary.json'), 'utf8')) as {
    dsl: { components: Record<string, { obj: { params: Record<string, unknown> } }> };
  };
  const chunker = t.dsl.components['TokenChunker:ModernPetsKneel']!.obj.params;
  chunker.chunk_token_size = 8; // one chunk per paragraph
  chunker.delimiters = ['\n'];
  return t.dsl as unknown as Record<string, unknown>;
}

runBench(async () => {
  const env = await startBenchEnvironment();
  const { store, llm, client, taskQueue } = env;
  llm.when(() => ({ content: 'A valve check.' }));
  const dsl = pipelineDsl();
  const compiled = compilePipeline(dsl);
  if (!compiled.ok) throw new Error(`chunk_summary does not compile: ${JSON.stringify(compiled.problems)}`);
  const canvas = await store.canvases.create({ tenantId: 'bench', title: 'bench pipeline', canvasCategory: 'dataflow_canvas', dsl });
  const embeddingModel = datasetEmbeddingModel(null, {});
  const dataset = await store.knowledge.datasets.create({
    tenantId: 'bench',
    name: 'bench pipeline',
    embeddingModel,
    chunkMethod: 'naive',
    parserConfig: {},
    pipelineId: canvas.id,
  });
  const content = new TextEncoder().encode(MARKDOWN);
  const durable: number[] = [];
  const inProcess: number[] = [];
  await env.worker.runUntil(async () => {
    for (let r = 0; r < REPEATS; r++) {
      const doc = await store.knowledge.documents.create({ tenantId: 'bench', datasetId: dataset.id, name: `pump-${r}.md`, type: 'md', content });
      const t0 = performance.now();
      const result = await client.workflow.execute('ingestPipeline', {
        taskQueue,
        workflowId: `index-document-${doc.id}`,
        args: [{ tenantId: 'bench', documentId: doc.id, pipelineId: canvas.id, heartbeatTimeoutMs: 10_000 }],
      });
      const ms = performance.now() - t0;
      if (!result || result.chunks !== CHUNKS) throw new Error(`the durable run made ${result?.chunks ?? 'no'} chunks, not ${CHUNKS}`);
      durable.push((CHUNKS * 1000) / ms);

      const services = createPipelineServices(
        { store, llm: llmSettingsFromEnv({ LLM_BASE_URL: llm.url, LLM_API_KEY: 'x' }), embedding: {} },
        { tenantId: 'bench', embeddingModel },
      );
      const t1 = performance.now();
      const out = await runPipelineInProcess(compiled.pipeline, { id: doc.id, name: doc.name, size: content.byteLength }, services, { batchSize: 32 });
      const ms2 = performance.now() - t1;
      if (out.chunks?.length !== CHUNKS) throw new Error(`the in-process run made ${out.chunks?.length ?? 'no'} chunks, not ${CHUNKS}`);
      inProcess.push((CHUNKS * 1000) / ms2);
    }
  });
  const d = median(durable);
  const p = median(inProcess);
  printTable(`Ingestion pipeline: chunk_summary over ${CHUNKS} chunks, zero-latency model (median of ${REPEATS})`, [
    ['durable (ingestPipeline workflow)', `${d.toFixed(0)} chunks/s`],
    ['in-process (runPipelineInProcess)', `${p.toFixed(0)} chunks/s`],
    ['durable / in-process', `${(d / p).toFixed(2)}`],
    ['model calls', `${llm.calls.length} (${CHUNKS} per run and carrier)`],
  ]);
  await env.close();
});
