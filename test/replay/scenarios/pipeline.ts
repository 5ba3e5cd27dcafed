/** Ingestion pipelines (issue 16): a document through RAGFlow's chunk_summary template, the Extractor fanned out in batches. */
import { readFileSync } from 'node:fs';
import { datasetEmbeddingModel } from '../../../src/io/knowledge/embedder';
import type { ScenarioSet } from '../scenario';

const MARKDOWN = Array.from({ length: 5 }, (_, i) => `Paragraph ${i} tells how valve ${i} of the pump is checked.`).join('\n\n');

function chunkSummary(): Record<string, unknown> {
  const t = JSON.parse(readFileSync(new URL('../../fixtures/pipelines/chunk_summary.json', import.meta.url), 'utf8')) as {
    dsl: { components: Record<string, { obj: { params: Record<string, unknown> } }> };
  };
  const chunker = t.dsl.components['TokenChunker:ModernPetsKneel']!.obj.params;
  chunker.chunk_token_size = 8; // one chunk per paragraph
  chunker.delimiters = ['\n'];
  return t.dsl as unknown as Record<string, unknown>;
}

const pipelineScenarios: ScenarioSet = () => ({
  // loadPipeline → File, Parser, TokenChunker steps → Extractor items (5 in batches of 2, 2 in flight) → apply → Tokenizer → commit.
  'pipeline-ingest': {
    async start(ctx) {
      ctx.llm.when((c) => (/summarizer/i.test(String(c.body.messages[0]?.content)) ? { content: 'A valve check.' } : undefined));
      const canvas = await ctx.store.canvases.create({
        tenantId: ctx.tenantId,
        title: `pipeline ${Date.now()}`,
        canvasCategory: 'dataflow_canvas',
        canvasType: 'Ingestion Pipeline',
        dsl: chunkSummary(),
      });
      const dataset = await ctx.store.knowledge.datasets.create({
        tenantId: ctx.tenantId,
        name: `pipeline ds ${Date.now()}`,
        embeddingModel: datasetEmbeddingModel(null, {}), // the offline embedding
        chunkMethod: 'naive',
        parserConfig: {},
        pipelineId: canvas.id,
      });
      const doc = await ctx.store.knowledge.documents.create({
        tenantId: ctx.tenantId,
        datasetId: dataset.id,
        name: 'pump.md',
        type: 'md',
        content: new TextEncoder().encode(MARKDOWN),
      });
      const workflowId = `index-document-${doc.id}`;
      await ctx.client.workflow.start('ingestPipeline', {
        taskQueue: ctx.launch.taskQueue,
        workflowId,
        args: [{ tenantId: ctx.tenantId, documentId: doc.id, pipelineId: canvas.id, batchSize: 2, concurrency: 2, heartbeatTimeoutMs: 2000 }],
      });
      return { workflowId };
    },
  },
});

export default pipelineScenarios;
