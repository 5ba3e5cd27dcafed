/**
 * A case of the ingestion pipeline reference: a small document uploaded (and parsed) into a
 * dataset whose parser is a pipeline canvas, while the worker is stopped at one point of its
 * `ingestPipeline` workflow and started again. A pipeline's "answer" is the chunks it stores for
 * the document: they must be the uninterrupted run's, none stored twice, the document DONE, and
 * the workflow completed.
 */
import { Client, Connection } from '@temporalio/client';
import pg from 'pg';
import { callApi } from './client';
import { arm, disarm, hasFired, tracedPoints } from './control';
import type { PipelineDocument } from './references';
import { ACTION, stopAndRestart, waitFor, type StopKind } from './runCase';
import type { Topology } from './topology';

export interface PipelineOutcome {
  documentId: string;
  /** The document's `run` (DONE, FAIL, CANCEL, RUNNING…) and its `progress_msg`. */
  run: string;
  message: string;
  /** The stored chunks, in position order, as what a reader sees (content, keywords, extra). */
  chunks: string[];
  workflowStatus: string;
  reached: boolean;
  traced: string[];
  stopProblems: string[];
}

/** Uploads the document with `parse=true` (once: a retry first looks for it by name). */
async function uploadOnce(t: Topology, datasetId: string, doc: PipelineDocument, deadline: number): Promise<string> {
  for (;;) {
    const listed = await callApi(t, `/api/v1/datasets/${datasetId}/documents?page_size=100`, { method: 'GET' }, (s) => s === 200, deadline);
    const docs = (listed.body.data as { docs?: Array<{ id: string; name: string }> } | undefined)?.docs ?? [];
    const existing = docs.find((d) => d.name === doc.name);
    if (existing) return existing.id;
    const form = new FormData();
    form.append('file', new Blob([new TextEncoder().encode(doc.body)]), doc.name);
    form.append('parse', 'true');
    try {
      const res = await fetch(`${t.api.base}/api/v1/datasets/${datasetId}/documents`, {
        method: 'POST',
        headers: { authorization: t.auth.authorization ?? '' },
        body: form,
        signal: AbortSignal.timeout(30_000),
      });
      const body = (await res.json()) as { code: number; data?: Array<{ id: string }> };
      if (body.code === 0 && body.data?.[0]) return body.data[0].id;
      throw new Error(`uploading ${doc.name} failed: ${JSON.stringify(body)}`);
    } catch (err) {
      if (err instanceof Error && err.message.startsWith('uploading')) throw err;
      // refused or reset: the API is down; look for the document again
    }
    if (Date.now() > deadline) throw new Error(`uploading ${doc.name}: no answer before the deadline`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

async function documentRun(t: Topology, datasetId: string, documentId: string, deadline: number): Promise<string> {
  const res = await callApi(t, `/api/v1/datasets/${datasetId}/documents?id=${documentId}&page_size=100`, { method: 'GET' }, (s) => s === 200, deadline);
  const docs = (res.body.data as { docs?: Array<{ id: string; run: string }> } | undefined)?.docs ?? [];
  return docs.find((d) => d.id === documentId)?.run ?? 'MISSING';
}

/** The document's `progress_msg`: why it failed, when it did. */
async function documentMessage(t: Topology, datasetId: string, documentId: string, deadline: number): Promise<string> {
  const res = await callApi(t, `/api/v1/datasets/${datasetId}/documents?id=${documentId}&page_size=100`, { method: 'GET' }, (s) => s === 200, deadline);
  const docs = (res.body.data as { docs?: Array<{ id: string; progress_msg?: string }> } | undefined)?.docs ?? [];
  return docs.find((d) => d.id === documentId)?.progress_msg ?? '';
}

async function storedChunks(databaseUrl: string, documentId: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const r = await client.query<{ position: number; content: string; important_keywords: unknown; questions: unknown; extra: unknown }>(
      'SELECT position, content, important_keywords, questions, extra FROM chunks WHERE document_id = $1 ORDER BY position, content',
      [documentId],
    );
    return r.rows.map((c) => JSON.stringify([c.position, c.content, c.important_keywords, c.questions, c.extra]));
  } finally {
    await client.end();
  }
}

async function workflowStatus(t: Topology, workflowId: string): Promise<string> {
  const connection = await Connection.connect({ address: t.temporalAddress });
  try {
    const handle = new Client({ connection }).workflow.getHandle(workflowId);
    // The document's row is marked DONE before the workflow ends: let it end (or fail the document).
    await Promise.race([handle.result().catch(() => undefined), new Promise((r) => setTimeout(r, 60_000))]);
    return (await handle.describe()).status.name;
  } catch (err) {
    return `unknown (${err instanceof Error ? err.message : String(err)})`;
  } finally {
    await connection.close();
  }
}

export async function runPipelineCase(
  t: Topology,
  spec: { caseId: string; datasetId: string; document: PipelineDocument; point: string | null; stop: StopKind },
): Promise<PipelineOutcome> {
  const deadline = Date.now() + 120_000;
  arm(t.controlDir, { caseId: spec.caseId, point: spec.point, action: ACTION[spec.stop] });
  // Every case parses a document of its own (a name of its own), so its chunks are its alone.
  const document = { ...spec.document, name: `${spec.caseId}-${spec.document.name}` };
  const documentId = await uploadOnce(t, spec.datasetId, document, deadline);
  let run = 'RUNNING';
  let lastCheck = 0;
  const settled = () => run === 'DONE' || run === 'FAIL' || run === 'CANCEL';
  const poll = async () => {
    if (Date.now() - lastCheck < 500) return;
    lastCheck = Date.now();
    run = await documentRun(t, spec.datasetId, documentId, deadline).catch(() => run);
  };
  let reached = spec.point === null;
  let stopProblems: string[] = [];
  if (spec.point) {
    const ended = () => {
      void poll();
      return settled();
    };
    await waitFor(() => hasFired(t.controlDir, spec.caseId) || ended(), deadline);
    // A point in the task that completes the workflow fires a moment after the document is DONE.
    if (!hasFired(t.controlDir, spec.caseId)) await waitFor(() => hasFired(t.controlDir, spec.caseId), Date.now() + 3_000);
    reached = hasFired(t.controlDir, spec.caseId);
    if (reached) stopProblems = await stopAndRestart(t, { caseId: spec.caseId, stop: spec.stop }, false);
  }
  for (run = 'RUNNING'; !settled() && Date.now() < deadline; await new Promise((r) => setTimeout(r, 300))) {
    run = await documentRun(t, spec.datasetId, documentId, deadline);
  }
  // What the document ends as is read once its workflow has ended: an activity that is run again
  // after the document was marked DONE (its first attempt's completion lost) can still mark it FAIL.
  const workflow = await workflowStatus(t, `index-document-${documentId}`);
  disarm(t.controlDir);
  return {
    documentId,
    run: await documentRun(t, spec.datasetId, documentId, Date.now() + 60_000),
    message: await documentMessage(t, spec.datasetId, documentId, Date.now() + 60_000),
    chunks: await storedChunks(t.databaseUrl, documentId),
    workflowStatus: workflow,
    reached,
    traced: tracedPoints(t.controlDir, spec.caseId),
    stopProblems,
  };
}

/** The problems of one pipeline case: empty when it passed. */
export function judgePipeline(o: PipelineOutcome, baseline: PipelineOutcome): string[] {
  if (!o.reached) return [`the point was never reached (the uninterrupted run passes: ${baseline.traced.join(', ')})`];
  const problems = [...o.stopProblems];
  if (o.run !== 'DONE') problems.push(`the document ended ${o.run}, not DONE (${o.message.slice(0, 160)})`);
  const twice = o.chunks.length - new Set(o.chunks).size;
  if (twice > 0) problems.push(`${twice} chunk(s) stored twice`);
  if (JSON.stringify(o.chunks) !== JSON.stringify(baseline.chunks))
    problems.push(
      `the stored chunks differ: ${o.chunks.length} chunk(s) instead of the uninterrupted run's ${baseline.chunks.length} (${o.chunks[0]?.slice(0, 80) ?? 'none'})`,
    );
  if (o.workflowStatus !== 'COMPLETED') problems.push(`its workflow is ${o.workflowStatus}, not completed`);
  return problems;
}

export function judgePipelineBaseline(o: PipelineOutcome): string[] {
  const problems: string[] = [];
  if (o.run !== 'DONE') problems.push(`the uninterrupted parse ended ${o.run} (${o.message.slice(0, 160)})`);
  if (o.chunks.length === 0) problems.push('the uninterrupted parse stored no chunks');
  if (o.workflowStatus !== 'COMPLETED') problems.push(`the uninterrupted parse's workflow is ${o.workflowStatus}`);
  return problems;
}
