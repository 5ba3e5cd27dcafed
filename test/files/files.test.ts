/**
 * Files in and out of runs over the real API, worker and dev server: uploads a model reads
 * (parsed text, an image as an `image_url` part; history holds references only), DocGenerator's
 * PDF and DOCX and ExcelProcessor's merged xlsx downloaded back and parsed, and the download route
 * closed to another tenant.
 */
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, parseSse, startHarness, type Harness } from '../helpers/appHarness';
import { dsl } from '../helpers/canvasKit';
import { textPdf } from '../helpers/pdf';
import type { RecordedCall } from '../helpers/scriptedLlm';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 120_000);
afterAll(async () => h?.close());

type Envelope<T = Record<string, unknown>> = { code: number; message?: string; data: T };

/** A 1×1 red PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64');

async function createAgent(nodes: Parameters<typeof dsl>[0]): Promise<string> {
  const res = (await api(h, 'POST', '/api/v1/agents', { body: { title: `files ${Date.now()} ${Math.random()}`, dsl: dsl(nodes) } })).body as Envelope<{
    id: string;
  }>;
  expect(res.code).toBe(0);
  return res.data.id;
}

async function upload(agentId: string, files: Array<{ name: string; type: string; bytes: Uint8Array }>, key = h.key): Promise<Envelope<unknown>> {
  const form = new FormData();
  for (const f of files) form.append('file', new Blob([f.bytes], { type: f.type }), f.name);
  const res = await fetch(`${h.base}/api/v1/agents/${agentId}/upload`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
  return (await res.json()) as Envelope<unknown>;
}

async function run(agentId: string, body: Record<string, unknown>) {
  const res = await api(h, 'POST', '/api/v1/agents/chat/completions', { body: { agent_id: agentId, stream: true, query: 'go', ...body } });
  const events = parseSse(res.text)
    .filter((m) => m.json)
    .map((m) => m.json!);
  const taskId = String(events.find((e) => e.task_id)?.task_id ?? '');
  return { events, taskId };
}

async function historyOf(taskId: string): Promise<string> {
  const r = (await api(h, 'GET', `/api/v1/runs/${taskId}`)).body as { workflow_id: string };
  const raw = JSON.stringify(await h.temporal.client.workflow.getHandle(r.workflow_id).fetchHistory());
  // Payloads are base64 JSON: decoded, so what travelled through history can be searched.
  const decoded = [...raw.matchAll(/"data":"([A-Za-z0-9+/=]+)"/g)].map((m) => Buffer.from(m[1]!, 'base64').toString('utf8'));
  return `${raw}\n${decoded.join('\n')}`;
}

async function download(url: string, key = h.key): Promise<Response> {
  return fetch(`${h.base}${url}`, { headers: { authorization: `Bearer ${key}` } });
}

describe('files into a run', () => {
  it('an Agent reads an uploaded PDF as text and a PNG as an image_url part; history holds references only', async () => {
    const agentId = await createAgent({
      begin: { name: 'Begin', downstream: ['Agent:Reader'] },
      'Agent:Reader': {
        name: 'Agent',
        params: { sys_prompt: 'MARK-files reader', prompts: [{ role: 'user', content: 'Read these: {sys.files}' }] },
        downstream: ['Message:Out'],
      },
      'Message:Out': { name: 'Message', params: { content: ['{Agent:Reader@content}'] } },
    });
    const pdf = await upload(agentId, [{ name: 'report.pdf', type: 'application/pdf', bytes: textPdf(['Quarterly revenue was 42 million']) }]);
    expect(pdf).toMatchObject({ code: 0, data: { name: 'report.pdf', extension: 'pdf', mime_type: 'application/pdf', preview_url: null } });
    const png = await upload(agentId, [{ name: 'chart.png', type: 'image/png', bytes: PNG }]);
    expect(png.code).toBe(0);

    const seen: RecordedCall[] = [];
    h.llm.whenPromptIncludes('MARK-files', (call) => {
      seen.push(call);
      return { content: 'Revenue was 42 million; the chart is red.' };
    });
    const { events, taskId } = await run(agentId, { files: [pdf.data, png.data] });
    expect(events.find((e) => e.event === 'workflow_finished')).toBeTruthy();
    expect(seen).toHaveLength(1);
    const user = seen[0]!.body.messages.find((m) => m.role === 'user')!;
    const parts = user.content as Array<{ type: string; text?: string; image_url?: { url: string } }>;
    expect(Array.isArray(parts)).toBe(true);
    expect(parts[0]!.text).toContain('Quarterly revenue was 42 million');
    expect(parts[0]!.text).not.toContain('⟦file:');
    expect(parts.find((p) => p.type === 'image_url')?.image_url?.url).toBe(`data:image/png;base64,${PNG.toString('base64')}`);

    const history = await historyOf(taskId);
    expect(history).toContain('⟦file:');
    expect(history).not.toContain(PNG.toString('base64'));
    expect(history).not.toContain('Quarterly revenue');
    expect(history).not.toContain('%PDF');
  }, 60_000);

  it('files the prompt does not place join the last user message (RAGFlow auto-injection); an unknown file is refused', async () => {
    const agentId = await createAgent({
      begin: { name: 'Begin', downstream: ['LLM:A'] },
      'LLM:A': { name: 'LLM', params: { sys_prompt: 'MARK-auto', prompts: [{ role: 'user', content: '{sys.query}' }] }, downstream: ['Message:Out'] },
      'Message:Out': { name: 'Message', params: { content: ['{LLM:A@content}'] } },
    });
    const txt = await upload(agentId, [{ name: 'notes.txt', type: 'text/plain', bytes: new TextEncoder().encode('the launch code is tulip') }]);
    const seen: RecordedCall[] = [];
    h.llm.whenPromptIncludes('MARK-auto', (call) => {
      seen.push(call);
      return { content: 'ok' };
    });
    await run(agentId, { query: 'what is the code?', files: [txt.data] });
    const last = seen[0]!.body.messages.at(-1)!;
    expect(last.content).toBe('what is the code?\n\nthe launch code is tulip');

    const refused = await api(h, 'POST', '/api/v1/agents/chat/completions', {
      body: { agent_id: agentId, query: 'x', files: [{ id: 'nope', name: 'x', mime_type: 'text/plain' }] },
    });
    expect(refused.body).toMatchObject({ code: 101 });
    // Another tenant cannot name this tenant's upload.
    const other = await api(h, 'POST', '/api/v1/agents/chat/completions', { key: h.otherKey, body: { agent_id: agentId, query: 'x', files: [txt.data] } });
    expect((other.body as Envelope).code).not.toBe(0);
  }, 60_000);
});

describe('a Begin file input', () => {
  it('an uploaded file given as a Begin input reaches the model as its text, by reference', async () => {
    const agentId = await createAgent({
      begin: { name: 'Begin', params: { mode: 'task', inputs: { doc: { name: 'Document', type: 'file', optional: false } } }, downstream: ['LLM:A'] },
      'LLM:A': {
        name: 'LLM',
        params: { sys_prompt: 'MARK-begin-file', prompts: [{ role: 'user', content: 'Summarize: {begin@doc}' }] },
        downstream: ['Message:Out'],
      },
      'Message:Out': { name: 'Message', params: { content: ['{LLM:A@content}'] } },
    });
    const txt = await upload(agentId, [{ name: 'memo.md', type: 'text/markdown', bytes: new TextEncoder().encode('# Memo\n\nThe ferry leaves at noon.') }]);
    const seen: RecordedCall[] = [];
    h.llm.whenPromptIncludes('MARK-begin-file', (call) => {
      seen.push(call);
      return { content: 'noon' };
    });
    const { taskId } = await run(agentId, { inputs: { doc: { type: 'file', value: [txt.data] } } });
    expect(seen).toHaveLength(1);
    const last = String(seen[0]!.body.messages.at(-1)!.content);
    expect(last).toContain('The ferry leaves at noon.');
    expect(last).not.toContain('⟦file:');
    expect(await historyOf(taskId)).not.toContain('ferry leaves');
  }, 60_000);
});

describe('files out of a run', () => {
  it('DocGenerator makes a PDF and a DOCX that parse back; a Message lists them as downloads; another tenant gets 404', async () => {
    const content = '# Findings\n\nThe **tulip** project shipped on time.\n\n- first point\n- second point';
    const agentId = await createAgent({
      begin: { name: 'Begin', downstream: ['DocGenerator:Pdf'] },
      'DocGenerator:Pdf': {
        name: 'DocGenerator',
        params: { output_format: 'pdf', content, filename: 'findings', header_text: 'ACME report', footer_text: 'confidential', watermark_text: 'DRAFT' },
        downstream: ['DocGenerator:Docx'],
      },
      'DocGenerator:Docx': {
        name: 'DocGenerator',
        params: { output_format: 'docx', content, header_text: 'ACME report', watermark_text: 'DRAFT' },
        downstream: ['Message:Out'],
      },
      'Message:Out': { name: 'Message', params: { content: ['Your files:{DocGenerator:Pdf@download}{DocGenerator:Docx@download}'] } },
    });
    const { events, taskId } = await run(agentId, {});
    const text = events
      .filter((e) => e.event === 'message')
      .map((e) => (e.data as { content: string }).content)
      .join('');
    expect(text).toBe('Your files:');
    const end = events.find((e) => e.event === 'message_end')!.data as {
      downloads: Array<{ doc_id: string; filename: string; mime_type: string; download_url: string }>;
    };
    expect(end.downloads).toHaveLength(2);
    expect(end.downloads[0]).toMatchObject({ filename: 'findings.pdf', mime_type: 'application/pdf' });
    expect(end.downloads[1]!.filename).toMatch(/^document_\d{8}_\d{6}_[0-9a-f]{8}\.docx$/);

    const pdfRes = await download(end.downloads[0]!.download_url);
    expect(pdfRes.status).toBe(200);
    expect(pdfRes.headers.get('content-type')).toBe('application/pdf');
    const { extractText, getDocumentProxy } = await import('unpdf');
    const pdfText = (await extractText(await getDocumentProxy(new Uint8Array(await pdfRes.arrayBuffer())), { mergePages: true })).text as string;
    expect(pdfText).toContain('Findings');
    expect(pdfText).toContain('tulip');
    expect(pdfText).toContain('ACME report');
    expect(pdfText).toContain('Page 1 of 1');

    const docxRes = await download(end.downloads[1]!.download_url);
    expect(docxRes.status).toBe(200);
    const mammoth = await import('mammoth');
    const docxText = (await mammoth.extractRawText({ buffer: Buffer.from(await docxRes.arrayBuffer()) })).value;
    expect(docxText).toContain('The tulip project shipped on time.');
    expect(docxText).toContain('second point');

    expect((await download(end.downloads[0]!.download_url, h.otherKey)).status).toBe(404);
    const history = await historyOf(taskId);
    expect(history).not.toContain('%PDF');
  }, 60_000);

  it('ExcelProcessor merges two uploaded sheets and outputs an xlsx that reads back with the rows', async () => {
    const sheet = async (rows: Array<[string, number]>) => {
      const wb = new ExcelJS.Workbook();
      const ws = wb.addWorksheet('Sales');
      ws.addRow(['region', 'amount']);
      for (const r of rows) ws.addRow(r);
      return new Uint8Array(await wb.xlsx.writeBuffer());
    };
    const agentId = await createAgent({
      begin: { name: 'Begin', downstream: ['ExcelProcessor:Merge'] },
      'ExcelProcessor:Merge': { name: 'ExcelProcessor', params: { operation: 'merge', input_files: ['{sys.files}'] }, downstream: ['ExcelProcessor:Out'] },
      'ExcelProcessor:Out': {
        name: 'ExcelProcessor',
        params: { operation: 'output', transform_data: '{ExcelProcessor:Merge@data}', output_format: 'xlsx', output_filename: 'all_sales' },
        downstream: ['Message:Out'],
      },
      'Message:Out': { name: 'Message', params: { content: ['{ExcelProcessor:Merge@summary}{ExcelProcessor:Out@attachment}'] } },
    });
    const up = await upload(agentId, [
      {
        name: 'north.xlsx',
        type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
        bytes: await sheet([
          ['north', 10],
          ['north', 11],
        ]),
      },
      { name: 'south.xlsx', type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', bytes: await sheet([['south', 20]]) },
    ]);
    expect(up.code).toBe(0);
    const { events } = await run(agentId, { files: up.data });
    const text = events
      .filter((e) => e.event === 'message')
      .map((e) => (e.data as { content: string }).content)
      .join('');
    expect(text).toBe('Merged 2 sources into 3 rows, 2 columns');
    const end = events.find((e) => e.event === 'message_end')!.data as {
      attachment: { doc_id: string; format: string; file_name: string; download_url: string };
    };
    expect(end.attachment).toMatchObject({ format: 'xlsx', file_name: 'all_sales.xlsx' });
    const res = await download(end.attachment.download_url);
    expect(res.status).toBe(200);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(await res.arrayBuffer());
    const rows = wb
      .getWorksheet('merged')!
      .getSheetValues()
      .slice(1)
      .map((r) => (r as unknown[]).slice(1));
    expect(rows).toEqual([
      ['region', 'amount'],
      ['north', 10],
      ['north', 11],
      ['south', 20],
    ]);
    expect((await download(end.attachment.download_url, h.otherKey)).status).toBe(404);
  }, 60_000);
});
