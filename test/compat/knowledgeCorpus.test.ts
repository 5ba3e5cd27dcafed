/**
 * RAGFlow canvases that search knowledge (../shared/ragflow-dsl), run over HTTP on Temporal with
 * the scripted model: the datasets their Retrieval nodes name are created with those ids and
 * filled through the upload route; each run reaches workflow_finished and its message_end
 * carries the cited chunks. (Templates that ship without a dataset search all of the tenant's.)
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, parseSse, startHarness, type Harness } from '../helpers/appHarness';
import type { RecordedCall } from '../helpers/scriptedLlm';
import { startWebSearchServer, type WebSearchServer } from '../helpers/webSearchServer';
import { startMysql } from '../security/mysqlServer';
import mysql from 'mysql2/promise';
import { skipBecause } from '../helpers/skip';

const corpus = path.resolve(__dirname, '../../../shared/ragflow-dsl');
const present = existsSync(corpus);
if (!present) console.warn(`[compat] skipped: ${corpus} is absent`);

let h: Harness;
let web: WebSearchServer;

async function dataset(id: string, name: string, files: Record<string, string>): Promise<void> {
  await h.store.knowledge.datasets.create({
    id,
    tenantId: 'tenant-a',
    name,
    embeddingModel: 'local-hash-256',
    chunkMethod: 'naive',
    parserConfig: { chunk_token_num: 128 },
  });
  const form = new FormData();
  for (const [name, text] of Object.entries(files)) form.append('file', new Blob([new TextEncoder().encode(text)]), name);
  form.append('parse', 'true');
  const res = (await (
    await fetch(`${h.base}/api/v1/datasets/${id}/documents`, { method: 'POST', headers: { authorization: `Bearer ${h.key}` }, body: form })
  ).json()) as { code: number };
  expect(res.code).toBe(0);
  const until = Date.now() + 60_000;
  for (;;) {
    const docs = (await api(h, 'GET', `/api/v1/datasets/${id}/documents`)).body as { data: { docs: Array<{ run: string }> } };
    if (docs.data.docs.every((d) => d.run === 'DONE')) return;
    if (Date.now() > until) throw new Error(`indexing did not finish: ${JSON.stringify(docs.data.docs)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function create(file: string): Promise<string> {
  const exported = JSON.parse(readFileSync(path.join(corpus, file), 'utf8')) as Record<string, unknown>;
  const body = 'dsl' in exported ? { ...exported, title: `${file} ${Date.now()}` } : { title: `${file} ${Date.now()}`, dsl: exported };
  const res = (await api(h, 'POST', '/api/v1/agents', { body })).body as { code: number; data: { id: string } };
  expect(res.code, JSON.stringify(res).slice(0, 300)).toBe(0);
  return res.data.id;
}

async function run(agentId: string, query: string) {
  const res = await api(h, 'POST', '/api/v1/agents/chat/completions', { body: { agent_id: agentId, query, stream: true } });
  const events = parseSse(res.text)
    .filter((m) => m.json)
    .map((m) => m.json!);
  const text = events
    .filter((e) => e.event === 'message')
    .map((e) => (e.data as { content: string }).content)
    .join('');
  const ends = events
    .filter((e) => e.event === 'message_end')
    .map((e) => e.data as { reference?: { chunks: Record<string, { content: string; document_name: string }> } });
  return { events, text, names: events.map((e) => String(e.event)), reference: ends.at(-1)?.reference };
}

/** Answers with a citation of the first knowledge block whose text contains `needle`. */
function citing(needle: string, answer: string) {
  return (call: RecordedCall) => {
    const all = call.body.messages.map((m) => String(m.content)).join('\n');
    const blocks = all.split(/\nID: /).slice(1);
    const hit = blocks.find((b) => b.includes(needle));
    return { content: hit ? `${answer} [ID:${hit.split('\n')[0]}]` : `${answer} (no source)` };
  };
}

describe.skipIf(!present)('RAGFlow knowledge canvases', () => {
  beforeAll(async () => {
    web = await startWebSearchServer();
    h = await startHarness({ env: { TAVILY_BASE_URL: web.url, TAVILY_API_KEY: 'tvly-test', NETWORK_ALLOW_HOSTS: '127.0.0.1' } });
    await dataset('1a3d1d7afb0611ef9866047c16ec874f', 'product manual', {
      'manual.md':
        '# Product manual\n\n## Charging\n\nThe X200 charges fully in 90 minutes with the supplied cable.\n\n## Cleaning\n\nWipe the lens with a dry microfiber cloth.',
    });
    await dataset('65cb5150819b11f08347047c16ec874f', 'specifications', {
      'specs.txt': 'The X200 weighs 450 grams. The X300 weighs 520 grams and has a larger battery.',
    });
    await dataset('a5aaec4a819b11f095f1047c16ec874f', 'usage guides', {
      'usage.md': '# Usage\n\nTo pair the X200, hold the Bluetooth key for five seconds until the light blinks.',
    });
  }, 180_000);
  afterAll(async () => Promise.all([h?.close(), web?.stop()]));

  const cited = (r: Awaited<ReturnType<typeof run>>, needle: string) => {
    const id = /\[ID:(\d+)\]/.exec(r.text)?.[1];
    expect(id, r.text).toBeTruthy();
    expect(r.reference?.chunks[id!]?.content).toContain(needle);
  };

  it('examples/retrieval_and_generate.json: retrieves from the dataset and answers with a citation', async () => {
    h.llm.whenPromptIncludes('Please summarize the content of the knowledge base', citing('90 minutes', 'It charges in 90 minutes.'));
    const r = await run(await create('examples/retrieval_and_generate.json'), 'How long does the X200 take to charge?');
    expect(r.names.at(-1)).toBe('workflow_finished');
    cited(r, '90 minutes');
  });

  it('examples/retrieval_categorize_and_generate.json: a product question goes through retrieval to a cited answer', async () => {
    h.llm.whenPromptIncludes('You classify user questions', (call) => ({
      content: /lens|charge|X200/i.test(JSON.stringify(call.body.messages.at(-1))) ? 'product_related' : 'others',
    }));
    h.llm.whenPromptIncludes('Please summarize the content of the dataset', citing('microfiber', 'Use a dry microfiber cloth.'));
    const r = await run(await create('examples/retrieval_categorize_and_generate.json'), 'How do I clean the X200 lens?');
    expect(r.names.at(-1)).toBe('workflow_finished');
    cited(r, 'microfiber');
  });

  it('templates/smart_customer_service_specialist.json: a usage question is routed to its dataset and answered with a citation', async () => {
    h.llm.when((call) =>
      String(call.body.messages[0]?.content).includes('You classify') && JSON.stringify(call.body.messages).includes('Product Usage Guide')
        ? { content: 'Product Usage Guide' }
        : undefined,
    );
    h.llm.whenPromptIncludes('You are a product usage guide assistant', citing('Bluetooth key', 'Hold the Bluetooth key for five seconds.'));
    const r = await run(await create('templates/smart_customer_service_specialist.json'), 'How do I pair my X200?');
    expect(r.names.at(-1)).toBe('workflow_finished');
    cited(r, 'Bluetooth key');
  });

  it('templates/web_search_assistant.json: web search and the tenant’s datasets both reach the run’s reference', async () => {
    h.llm.whenPromptIncludes('Question Refinement Agent', { content: 'X300 weight' });
    h.llm.whenPromptIncludes('Search-Driven Information Agent', (call) =>
      call.body.messages.some((m) => m.role === 'tool')
        ? { content: 'The web says the X300 is light.' }
        : { toolCalls: [{ id: 'w1', name: 'tavily_search_0', arguments: '{"query": "X300 weight"}' }] },
    );
    h.llm.whenPromptIncludes('You are an Answer Organizer', { content: 'The X300 weighs 520 grams.' });
    const r = await run(await create('templates/web_search_assistant.json'), 'how heavy is the X300?');
    expect(r.names.at(-1)).toBe('workflow_finished');
    expect(web.calls.some((c) => c.body.query === 'X300 weight')).toBe(true);
    // The template hands the organizer the web agent's answer twice (its "Retrieval result" reads
    // the agent, not the Retrieval), so the answer carries no [ID:n]; the run's reference still
    // holds both sources' chunks, as RAGFlow's would.
    const chunks = Object.values(r.reference?.chunks ?? {});
    expect(chunks.some((c) => c.content.includes('520 grams'))).toBe(true);
    expect(chunks.some((c) => c.content.includes('Finding 1 about X300 weight'))).toBe(true);
  });

  it('templates/text2sql_data_expert.json: the schema from the datasets becomes SQL that runs on a real MySQL-protocol server', async (ctx) => {
    const db = await startMysql();
    if ('skipped' in db) return skipBecause(ctx, `no MySQL-protocol server: ${db.skipped}`);
    try {
      const conn = await mysql.createConnection({ host: db.host, port: db.port, user: db.user, password: db.password, database: db.database });
      await conn.query('CREATE TABLE products (name VARCHAR(40), price DECIMAL(8,2))');
      await conn.query("INSERT INTO products VALUES ('X200', 399.00), ('cable', 19.90), ('case', 29.50)");
      await conn.end();
      await dataset('d0c5e5a0e0e011f0a0e0000000000001', 'shop schema', {
        'schema.md': '# Tables\n\nproducts(name VARCHAR, price DECIMAL): every product we sell and its price in euros.',
      });
      const id = await create('templates/text2sql_data_expert.json');
      // The template ships its database connection blank, to be filled in: fill in only that.
      const agent = (await api(h, 'GET', `/api/v1/agents/${id}`)).body as {
        data: { dsl: { components: Record<string, { obj: { params: Record<string, unknown> } }> } };
      };
      const dslBody = agent.data.dsl;
      Object.assign(dslBody.components['ExeSQL:TiredShirtsPull']!.obj.params, {
        host: db.host,
        port: db.port,
        database: db.database,
        username: db.user,
        password: db.password,
      });
      expect(((await api(h, 'PUT', `/api/v1/agents/${id}`, { body: { dsl: dslBody } })).body as { code: number }).code).toBe(0);
      h.llm.whenPromptIncludes('You are a Text-to-SQL assistant', (call) => ({
        content: JSON.stringify(call.body.messages).includes('products(name VARCHAR')
          ? 'SELECT name, price FROM products WHERE price < 100 ORDER BY price'
          : 'SELECT 1',
      }));
      const r = await run(id, 'Which products cost less than 100 euros?');
      expect(r.names.at(-1)).toBe('workflow_finished');
      expect(r.text).toContain('| cable');
      expect(r.text).toContain('| case');
      expect(r.text).not.toContain('X200');
      expect(Object.values(r.reference?.chunks ?? {}).some((c) => c.content.includes('products(name VARCHAR'))).toBe(true);
    } finally {
      await db.stop();
    }
  });
});
