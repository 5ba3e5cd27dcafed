/**
 * A Retrieval's embedding and rerank requests in the run's model calls (`GET /api/v1/runs/{id}/calls`,
 * issue 36): as a canvas node and as an Agent's tool, each request with its kind, the model, the
 * query (and the documents reranked), its duration and the tokens the endpoint reported; an
 * embedding the endpoint failed once is a failed attempt followed by the one that answered. The
 * embeddings and rerank endpoints are a real local HTTP server (test/helpers/embedRerankServer.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, runSettled, startHarness, type Harness } from '../helpers/appHarness';
import { dsl } from '../helpers/canvasKit';
import { EMBED_TOKENS_PER_TEXT, RERANK_TOKENS, seedDataset, startEmbedRerankServer, type EmbedRerankServer } from '../helpers/embedRerankServer';
import { createAgent, script, startRun } from '../ui/kit';
import type { RunCalls } from '../../api/plugins/runCalls';

let h: Harness;
let peer: EmbedRerankServer;
let datasetId: string;

/** The route's own schema's type (api/plugins/runCalls.ts). */
type Calls = RunCalls;

const CHUNKS = ['Refunds are paid within five business days.', 'The warranty covers two years of use.', 'Shipping takes a week.'];

beforeAll(async () => {
  peer = await startEmbedRerankServer();
  h = await startHarness({
    env: { EMBEDDING_BASE_URL: peer.url, EMBEDDING_API_KEY: 'test', EMBEDDING_MODEL: 'trace-embed', RERANK_BASE_URL: peer.url },
  });
  datasetId = await seedDataset(h, CHUNKS);
}, 120_000);
afterAll(async () => {
  await h?.close();
  await peer?.stop();
});

async function finished(runId: string): Promise<void> {
  expect(await runSettled(h, runId)).toBe('finished');
}

const retrievalParams = {
  dataset_ids: [] as string[],
  top_n: 2,
  similarity_threshold: 0,
  rerank_id: 'trace-rerank@Jina',
  max_retries: 2,
  delay_after_error: 0.1,
};

describe("a Retrieval's embedding and rerank requests", () => {
  it('lists the embedding (a failed attempt, then the one that answered) and the rerank of a Retrieval node with model, query, duration and usage', async () => {
    const agentId = await createAgent(
      h,
      'retrieval traced',
      dsl({
        begin: { name: 'Begin', downstream: ['Retrieval:kb'] },
        'Retrieval:kb': { name: 'Retrieval', params: { ...retrievalParams, dataset_ids: [datasetId] }, downstream: ['Message:m'] },
        'Message:m': { name: 'Message', params: { content: ['{Retrieval:kb@formalized_content}'] } },
      }),
    );
    peer.failEmbeddings(1);
    const runId = await startRun(h, agentId, { query: 'How fast are refunds paid?' });
    await finished(runId);

    const res = await api(h, 'GET', `/api/v1/runs/${runId}/calls?node=Retrieval:kb`);
    expect(res.status, res.text).toBe(200);
    const { calls } = res.body as Calls;
    expect(calls.map((c) => [c.node_id, c.attempts.map((a) => `${a.kind} ${a.attempt} ${a.outcome}`)])).toEqual([
      ['Retrieval:kb', ['embedding 1 failed', 'embedding 2 ok']],
      ['Retrieval:kb', ['rerank 2 ok']],
    ]);
    const [failed, embedded] = calls[0]!.attempts;
    expect(failed!.error).toContain('embedding backend restarting');
    expect(failed).toMatchObject({ model: 'trace-embed', response: null, usage: { prompt_tokens: 0, reported: false } });
    expect(embedded).toMatchObject({
      model: 'trace-embed',
      error: null,
      usage: { prompt_tokens: EMBED_TOKENS_PER_TEXT, completion_tokens: 0, reported: true },
      cost: 0,
      priced: false,
      request: { messages: [{ role: 'query', content: 'How fast are refunds paid?' }] },
      response: { content: '1 vector of 64 dimensions' },
    });
    const rerank = calls[1]!.attempts[0]!;
    expect(rerank).toMatchObject({
      model: 'trace-rerank@Jina',
      usage: { prompt_tokens: RERANK_TOKENS, reported: true },
      request: { params: { documents: 3 } },
    });
    expect(rerank.request.messages[0]).toEqual({ role: 'query', content: 'How fast are refunds paid?' });
    expect(rerank.request.messages.slice(1).map((m) => m.role)).toEqual(['document', 'document', 'document']);
    expect(
      rerank.request.messages
        .slice(1)
        .map((m) => m.content)
        .sort(),
    ).toEqual([...CHUNKS].sort());
    for (const a of [failed!, embedded!, rerank]) expect(a.duration_ms).toBeGreaterThanOrEqual(0);
    // What the endpoints were sent is what the traces say.
    expect(peer.reranks.at(-1)).toMatchObject({ model: 'trace-rerank', query: 'How fast are refunds paid?' });
  }, 120_000);

  it("lists them under the Agent whose Retrieval tool made them, beside the Agent's chat calls", async () => {
    script(h.llm, 'MARK-traced-agent', [
      { toolCalls: [{ id: 'k1', name: 'search_my_dateset_0', arguments: JSON.stringify({ query: 'warranty years' }) }] },
      { content: 'Two years.' },
    ]);
    const agentId = await createAgent(
      h,
      'agent retrieval traced',
      dsl({
        begin: { name: 'Begin', downstream: ['Agent:a'] },
        'Agent:a': {
          name: 'Agent',
          params: {
            llm_id: 'scripted@OpenAI',
            sys_prompt: 'MARK-traced-agent Answer from the knowledge base.',
            tools: [{ component_name: 'Retrieval', name: 'Retrieval', params: { ...retrievalParams, dataset_ids: [datasetId] } }],
          },
          downstream: ['Message:m'],
        },
        'Message:m': { name: 'Message', params: { content: ['{Agent:a@content}'] } },
      }),
    );
    const runId = await startRun(h, agentId, { query: 'How long is the warranty?' });
    await finished(runId);
    const { calls } = (await api(h, 'GET', `/api/v1/runs/${runId}/calls?node=Agent:a`)).body as Calls;
    expect(calls.map((c) => c.attempts.map((a) => a.kind).join())).toEqual(['chat', 'embedding', 'rerank', 'chat']);
    const embedding = calls[1]!.attempts[0]!;
    expect(embedding).toMatchObject({ outcome: 'ok', model: 'trace-embed', usage: { prompt_tokens: EMBED_TOKENS_PER_TEXT, reported: true } });
    expect(embedding.request.messages).toEqual([{ role: 'query', content: 'warranty years' }]);
  }, 120_000);

  it("lists the query's embedding of a Retrieval that searches memories", async () => {
    const memory = (
      await api(h, 'POST', '/api/v1/memories', { body: { name: 'Traced memory', memory_type: ['raw'], embd_id: 'trace-embed', llm_id: 'glm-4@ZHIPU-AI' } })
    ).body as { code: number; data: { id: string } };
    expect(memory.code, JSON.stringify(memory)).toBe(0);
    const agentId = await createAgent(
      h,
      'memory retrieval traced',
      dsl({
        begin: { name: 'Begin', downstream: ['Retrieval:mem'] },
        'Retrieval:mem': {
          name: 'Retrieval',
          params: { query: '{sys.query}', memory_ids: [memory.data.id], empty_response: 'NOTHING' },
          downstream: ['Message:m'],
        },
        'Message:m': { name: 'Message', params: { content: ['{Retrieval:mem@formalized_content}'] } },
      }),
    );
    const runId = await startRun(h, agentId, { query: 'Which locker is mine?' });
    await finished(runId);
    const { calls } = (await api(h, 'GET', `/api/v1/runs/${runId}/calls?node=Retrieval:mem`)).body as Calls;
    expect(calls.map((c) => c.attempts.map((a) => `${a.kind} ${a.outcome} ${a.model} ${a.request.messages[0]?.content}`))).toEqual([
      ['embedding ok trace-embed Which locker is mine?'],
    ]);
  }, 120_000);
});
