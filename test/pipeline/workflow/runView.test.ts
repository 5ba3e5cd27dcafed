/**
 * A document parsed through its dataset's pipeline is a run of the pipeline canvas in the run
 * view: listed by `GET /api/v1/runs` (no session), its status on `GET /api/v1/runs/{id}`, and on
 * `GET /api/v1/runs/{id}/events` RAGFlow's events: workflow_started, node_started/node_finished
 * for each step in the pipeline's order (outputs as counts, never payloads), then a terminal
 * event. A stop ends the run canceled. A stop that lands after a new parse began leaves the
 * document to the new parse.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compilePipeline } from '../../../src/core/pipeline/compile';
import { api, parseSse, startHarness, type Harness } from '../../helpers/appHarness';
import { answerExtractors, createDataset, createPipeline, documents, settled, upload, type Envelope } from './pipelineKit';

const MARKDOWN = Array.from({ length: 6 }, (_, i) => `## Part ${i}\n\nParagraph ${i} tells how the pump model ${i} is primed and drained.`).join('\n\n');

let h: Harness;
/** While set, every model call waits for it (the Extractor stalls mid-step). */
let gate: Promise<unknown> | null = null;
beforeAll(async () => {
  h = await startHarness({ scriptedEmbeddings: true });
  h.llm.when(() => (gate ? { until: gate, then: { content: 'late summary' } } : undefined));
  answerExtractors(h.llm);
}, 120_000);
afterAll(async () => h?.close());

interface RunItem {
  id: string;
  canvas_id: string;
  session_id: string | null;
  workflow_id: string;
  status: string;
  started_by: { kind: string; id: string };
}

const runsOf = async (pipelineId: string) => ((await api(h, 'GET', `/api/v1/runs?canvas_id=${pipelineId}`)).body as { items: RunItem[] }).items;
const eventsOf = async (runId: string) =>
  parseSse((await api(h, 'GET', `/api/v1/runs/${runId}/events`)).text)
    .map((m) => m.json)
    .filter((e): e is Record<string, unknown> => e !== null);
const stepIds = async (pipelineId: string) => {
  const compiled = compilePipeline((await h.store.canvases.getById(pipelineId))!.dsl);
  if (!compiled.ok) throw new Error('the template compiles');
  return compiled.pipeline.steps.map((s) => s.id);
};
const waitForWorkflow = (documentId: string) =>
  h.temporal.client.workflow
    .getHandle(`index-document-${documentId}`)
    .result()
    .catch(() => undefined);

describe('a pipeline run in the run view', () => {
  it('is listed under its pipeline, with one node_started and node_finished per step in order and workflow_finished', { timeout: 240_000 }, async () => {
    const pipelineId = await createPipeline(h, 'chunk_summary');
    const datasetId = await createDataset(h, pipelineId);
    const [documentId] = (await upload(h, datasetId, [{ name: 'pumps.md', body: MARKDOWN }])) as [string];
    const [doc] = await settled(h, datasetId);
    expect(doc!.run).toBe('DONE');
    await waitForWorkflow(documentId);

    const [run, ...others] = await runsOf(pipelineId);
    expect(others).toEqual([]);
    expect(run).toMatchObject({
      canvas_id: pipelineId,
      session_id: null,
      workflow_id: `index-document-${documentId}`,
      status: 'finished',
      started_by: { kind: 'document', id: documentId },
    });
    const view = (await api(h, 'GET', `/api/v1/runs/${run!.id}`)).body as Record<string, unknown>;
    expect(view).toMatchObject({ id: run!.id, status: 'finished', canvas_id: pipelineId, session_id: null, error: null });
    expect(view.canvas_version_id).toEqual(expect.any(String));

    const events = await eventsOf(run!.id);
    const steps = await stepIds(pipelineId);
    expect(events.map((e) => e.event)).toEqual(['workflow_started', ...steps.flatMap(() => ['node_started', 'node_finished']), 'workflow_finished']);
    const nodes = events.filter((e) => e.event === 'node_started' || e.event === 'node_finished');
    expect(nodes.map((e) => (e.data as { component_id: string }).component_id)).toEqual(steps.flatMap((id) => [id, id]));
    for (const finished of events.filter((e) => e.event === 'node_finished')) {
      const data = finished.data as { elapsed_time: number; outputs: Record<string, unknown>; component_name: string };
      expect(data.elapsed_time).toBeGreaterThanOrEqual(0);
      expect(data.component_name).toEqual(expect.any(String));
      // Summaries only: the whole events stay small however big the document is.
      expect(JSON.stringify(data.outputs).length).toBeLessThan(200);
    }
    const last = events.at(-1)!.data as { outputs: { chunks: number } };
    expect(last.outputs.chunks).toBe(doc!.chunk_count);
  });

  it('ends the run canceled with run_canceled then workflow_finished when parsing is stopped', { timeout: 240_000 }, async () => {
    const pipelineId = await createPipeline(h, 'chunk_summary');
    const datasetId = await createDataset(h, pipelineId);
    let release!: () => void;
    gate = new Promise<void>((r) => (release = r));
    const before = h.llm.calls.length;
    const [documentId] = (await upload(h, datasetId, [{ name: 'stopped.md', body: MARKDOWN }])) as [string];
    await h.llm.waitForCalls(before + 1, 120_000);
    const res = await api(h, 'DELETE', `/api/v1/datasets/${datasetId}/chunks`, { body: { document_ids: [documentId] } });
    expect((res.body as Envelope).code, res.text).toBe(0);
    await waitForWorkflow(documentId);
    gate = null;
    release();

    const [run] = await runsOf(pipelineId);
    expect(run!.status).toBe('canceled');
    const names = (await eventsOf(run!.id)).map((e) => e.event);
    expect(names[0]).toBe('workflow_started');
    expect(names.slice(-2)).toEqual(['run_canceled', 'workflow_finished']);
    expect((await documents(h, datasetId))[0]!.run).toBe('CANCEL');
  });

  it('ends the replaced run canceled when parsing starts again while it runs, and the new run finishes', { timeout: 240_000 }, async () => {
    const pipelineId = await createPipeline(h, 'chunk_summary');
    const datasetId = await createDataset(h, pipelineId);
    let release!: () => void;
    gate = new Promise<void>((r) => (release = r));
    const before = h.llm.calls.length;
    const [documentId] = (await upload(h, datasetId, [{ name: 'again.md', body: MARKDOWN }])) as [string];
    await h.llm.waitForCalls(before + 1, 120_000);
    gate = null;
    const res = await api(h, 'POST', `/api/v1/datasets/${datasetId}/chunks`, { body: { document_ids: [documentId] } });
    expect((res.body as Envelope).code, res.text).toBe(0);
    release();
    expect((await settled(h, datasetId))[0]!.run).toBe('DONE');
    await waitForWorkflow(documentId);

    const [newer, replaced] = await runsOf(pipelineId);
    expect([newer!.status, replaced!.status]).toEqual(['finished', 'canceled']);
    expect((await eventsOf(replaced!.id)).slice(-2).map((e) => [e.event, (e.data as { reason?: string }).reason ?? null])).toEqual([
      ['run_canceled', 'parsing started again'],
      ['workflow_finished', null],
    ]);
    expect((await eventsOf(newer!.id)).at(-1)!.event).toBe('workflow_finished');
  });

  it('leaves a document to a parse begun after the stop was scheduled', async () => {
    const datasetId = await createDataset(h, null);
    const [documentId] = (await upload(h, datasetId, [{ name: 'late.md', body: MARKDOWN }], false)) as [string];
    const stopScheduledAt = Date.now() - 1000;
    await h.store.knowledge.documents.setProgress(documentId, { run: 'RUNNING', progress: 0, msg: 'Queued', begin: true });
    await h.store.knowledge.documents.setProgress(documentId, { run: 'CANCEL', msg: 'Canceled', unlessBegunAfter: stopScheduledAt });
    expect((await documents(h, datasetId))[0]).toMatchObject({ run: 'RUNNING', progress_msg: 'Queued' });
    // The stop of the parse that is running now does end it.
    await h.store.knowledge.documents.setProgress(documentId, { run: 'CANCEL', msg: 'Canceled', unlessBegunAfter: Date.now() });
    expect((await documents(h, datasetId))[0]).toMatchObject({ run: 'CANCEL', progress_msg: 'Canceled' });
  });
});
