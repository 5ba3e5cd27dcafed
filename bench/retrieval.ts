/**
 * Retrieval benchmark (`npm run bench -- retrieval`): 10,000 chunks of generated, deterministic
 * text (offline embedding, 256 dimensions) in one dataset, then ~50 questions through
 * `searchKnowledge` (Retrieval's defaults: top_k 1024, top_n 8) on each backend that can run here:
 * PGlite, a real PostgreSQL (test/helpers/postgres.ts) and OpenSearch (test/helpers/opensearch.ts:
 * k-NN and exact scoring, both refresh policies). Prints search latency (median, p95), indexing
 * time (chunks written in the indexing activity's batches of 32, four documents at a time,
 * embeddings precomputed) and how often each backend's best chunk is PGlite's. Backends that
 * cannot run are listed with the reason.
 */
import { knowledgeDeps } from '../src/io/knowledge/deps';
import { storeIndex, type ChunkIndex } from '../src/io/knowledge/chunkIndex';
import { openSearchIndex } from '../src/io/knowledge/openSearchIndex';
import { searchKnowledge } from '../src/io/knowledge/search';
import { LOCAL_EMBEDDING_MODEL, localEmbedding } from '../src/io/text/localEmbedding';
import type { DocumentRecord, NewChunk } from '../src/io/store/knowledgeTypes';
import { openStore } from '../src/io/store/store';
import type { Store } from '../src/io/store/contract';
import { startOpenSearch } from '../test/helpers/opensearch';
import { startPostgres } from '../test/helpers/postgres';
import { printTable, runBench } from './common';

const CHUNKS = Number(process.env.BENCH_RETRIEVAL_CHUNKS ?? 10_000);
const QUERIES = Number(process.env.BENCH_RETRIEVAL_QUERIES ?? 50);
const PER_DOCUMENT = 100;
const BATCH = 32; // as activities/knowledge.ts writes
const PARALLEL_DOCUMENTS = 4;
const WARMUP = 5;
const TENANT = 'bench';

/** mulberry32: a small seeded PRNG, so every run generates the same corpus and questions. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Corpus {
  documents: Array<{ name: string; chunks: NewChunk[] }>;
  questions: Array<{ text: string; source: string }>;
}

/** Syllable words with a skewed (Zipf-like) frequency, sentences of them, questions from chunk words. */
function generate(): Corpus {
  const rand = prng(42);
  const syllables = [
    'ka',
    'lo',
    'mi',
    'ren',
    'to',
    'sa',
    'vel',
    'dor',
    'an',
    'is',
    'qu',
    'bra',
    'nel',
    'fi',
    'gor',
    'ul',
    'pe',
    'zan',
    'tri',
    'mo',
    'ek',
    'sol',
    'vu',
    'har',
  ];
  const vocab = Array.from({ length: 4000 }, (_, i) => {
    let w = '';
    for (let n = i, k = 0; k < 2 + (i % 3); k++, n = Math.floor(n / syllables.length) + k * 7) w += syllables[n % syllables.length];
    return `${w}${i % 10}`;
  });
  const word = () => vocab[Math.floor(vocab.length * rand() ** 2.5)]!;
  const documents: Corpus['documents'] = [];
  for (let d = 0; d * PER_DOCUMENT < CHUNKS; d++) {
    const id = `bench-doc-${d}`;
    const chunks: NewChunk[] = [];
    for (let p = 0; p < Math.min(PER_DOCUMENT, CHUNKS - d * PER_DOCUMENT); p++) {
      const sentences = Array.from({ length: 4 }, () => `${Array.from({ length: 8 + Math.floor(rand() * 10) }, word).join(' ')}.`);
      const content = sentences.join(' ');
      chunks.push({ id: `${id}-${p}`, content, section: `Part ${d}`, position: p, tokens: content.split(' ').length, embedding: localEmbedding(content) });
    }
    documents.push({ name: `manual-${d}.md`, chunks });
  }
  const all = documents.flatMap((d) => d.chunks);
  const questions = Array.from({ length: QUERIES + WARMUP }, () => {
    const chunk = all[Math.floor(rand() * all.length)]!;
    const words = chunk.content.replace(/\./g, '').split(' ');
    return { text: `how does ${Array.from({ length: 4 }, () => words[Math.floor(rand() * words.length)]).join(' ')} work?`, source: chunk.id };
  });
  return { documents, questions };
}

/** Runs `fn` over `items`, `n` at a time. */
async function inParallel<T>(items: T[], n: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** Writes the corpus to a store (rows and, with pgvector, vectors); resolves to the dataset id and the time taken. */
async function fillStore(store: Store, corpus: Corpus): Promise<{ datasetId: string; docs: DocumentRecord[]; ms: number }> {
  await store.tenants.ensure(TENANT, 'bench');
  const ds = await store.knowledge.datasets.create({
    tenantId: TENANT,
    name: `retrieval ${Date.now()}`,
    embeddingModel: LOCAL_EMBEDDING_MODEL,
    chunkMethod: 'naive',
    parserConfig: {},
  });
  const docs = await Promise.all(
    corpus.documents.map((d) => store.knowledge.documents.create({ tenantId: TENANT, datasetId: ds.id, name: d.name, type: 'md', content: new Uint8Array() })),
  );
  const started = performance.now();
  await inParallel(
    docs.map((doc, i) => ({ doc, chunks: corpus.documents[i]!.chunks })),
    PARALLEL_DOCUMENTS,
    async ({ doc, chunks }) => {
      for (let i = 0; i < chunks.length; i += BATCH)
        await store.knowledge.chunks.add(
          doc,
          chunks.slice(i, i + BATCH).map((c) => ({ ...c, id: `${doc.id}-${c.position}` })),
        );
    },
  );
  return { datasetId: ds.id, docs, ms: performance.now() - started };
}

/** Indexes the corpus into a search backend (nothing to do for the store itself). */
async function fillIndex(index: ChunkIndex, docs: DocumentRecord[], corpus: Corpus): Promise<number> {
  const started = performance.now();
  await inParallel(
    docs.map((doc, i) => ({ doc, chunks: corpus.documents[i]!.chunks })),
    PARALLEL_DOCUMENTS,
    async ({ doc, chunks }) => {
      for (let i = 0; i < chunks.length; i += BATCH)
        await index.indexDocument(
          doc,
          chunks.slice(i, i + BATCH).map((c) => ({ ...c, id: `${doc.id}-${c.position}` })),
          { more: i + BATCH < chunks.length },
        );
    },
  );
  return performance.now() - started;
}

interface Measured {
  median: number;
  p95: number;
  /** Per question: the best chunk (document name and position). */
  best: string[];
  /** Questions whose source chunk is among the top_n results. */
  sourceFound: number;
}

async function measure(store: Store, index: ChunkIndex, datasetId: string, corpus: Corpus): Promise<Measured> {
  const deps = knowledgeDeps(store, {}, index);
  const times: number[] = [];
  const best: string[] = [];
  let sourceFound = 0;
  for (const [i, q] of corpus.questions.entries()) {
    const started = performance.now();
    const r = await searchKnowledge(deps, {
      tenantId: TENANT,
      datasets: [datasetId],
      question: q.text,
      topN: 8,
      topK: 1024,
      similarityThreshold: 0.2,
      vectorWeight: 0.5,
    });
    if (i < WARMUP) continue;
    times.push(performance.now() - started);
    best.push(r.chunks[0] ? `${r.chunks[0].documentName}#${r.chunks[0].position}` : '-');
    const [docNo, pos] = q.source.replace('bench-doc-', '').split('-');
    if (r.chunks.some((c) => c.documentName === `manual-${docNo}.md` && String(c.position) === pos)) sourceFound++;
  }
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(times.length / 2)]!, p95: times[Math.min(times.length - 1, Math.ceil(times.length * 0.95) - 1)]!, best, sourceFound };
}

runBench(async () => {
  const t0 = performance.now();
  const corpus = generate();
  process.stderr.write(
    `retrieval bench: ${CHUNKS} chunks in ${corpus.documents.length} documents generated and embedded in ${seconds(performance.now() - t0)}\n`,
  );
  const rows: Array<[string, string]> = [];
  let reference: string[] | null = null;
  const report = (name: string, indexing: string, m: Measured) => {
    reference ??= m.best;
    const agree = m.best.filter((b, i) => b === reference![i]).length;
    rows.push([
      name,
      `search median ${m.median.toFixed(1)} ms, p95 ${m.p95.toFixed(1)} ms · indexing ${indexing} · source chunk in top 8: ${m.sourceFound}/${m.best.length} · best chunk = PGlite's: ${agree}/${m.best.length}`,
    ]);
    process.stderr.write(`  ${name}: done\n`);
  };

  // PGlite: the default store, and the home of the OpenSearch rows' datasets (chunks always live in the store).
  const pglite = await openStore({});
  const filled = await fillStore(pglite, corpus);
  report(`PGlite (${pglite.knowledge.vectorSearch})`, `${seconds(filled.ms)} (store)`, await measure(pglite, storeIndex(pglite), filled.datasetId, corpus));

  const pg = await startPostgres();
  if ('skipped' in pg) rows.push(['PostgreSQL', `skipped: ${pg.skipped}`]);
  else {
    const store = await openStore({ databaseUrl: pg.url });
    try {
      const f = await fillStore(store, corpus);
      report(
        `PostgreSQL (${store.knowledge.vectorSearch === 'sql' ? 'no pgvector: exact SQL' : 'pgvector'})`,
        `${seconds(f.ms)} (store)`,
        await measure(store, storeIndex(store), f.datasetId, corpus),
      );
    } finally {
      await store.close();
      await pg.stop();
    }
  }

  const os = await startOpenSearch({ knn: true });
  if ('skipped' in os) rows.push(['OpenSearch', `skipped: ${os.skipped}`]);
  else {
    try {
      // Both refresh policies for k-NN (indexing time is mostly the refresh wait), one for exact scoring.
      const variants = [
        ['auto', 'wait_for'],
        ['auto', 'true'],
        ['exact', 'true'],
      ] as const;
      for (const [vectorSearch, refresh] of variants) {
        const index = openSearchIndex({ url: os.url, indexPrefix: `bench-${vectorSearch}-${refresh.replace('_', '')}-${Date.now()}`, vectorSearch, refresh });
        try {
          const ms = await fillIndex(index, filled.docs, corpus);
          const knn = (await index.indexInfo(256))?.knn;
          report(
            `OpenSearch 2.19 (${knn ? 'k-NN: Lucene HNSW' : 'exact Painless script_score'}, refresh=${refresh})`,
            `${seconds(ms)} (index)`,
            await measure(pglite, index, filled.datasetId, corpus),
          );
        } finally {
          await index.close();
        }
      }
    } finally {
      await os.stop();
    }
  }
  await pglite.close();
  printTable(`Retrieval: ${CHUNKS} chunks (256-dim offline embedding), ${QUERIES} questions, searchKnowledge top_k 1024 / top_n 8`, rows);
});
