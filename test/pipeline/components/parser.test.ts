/**
 * The Parser per file type: what each setup's `output_format` yields, and the clear errors for
 * files this build cannot read (no OCR engine, no .doc reader, service-backed PDF methods).
 */
import { Document, HeadingLevel, Packer, Paragraph, Table, TableCell, TableRow } from 'docx';
import { describe, expect, it } from 'vitest';
import { ParserParamsSchema } from '../../../src/core/pipeline/components/Parser';
import { AppError } from '../../../src/errors';
import { writeXlsx } from '../../../src/io/text/sheets';
import type { PipelinePayload, PipelineServices } from '../../../src/io/knowledge/pipeline/contract';
import { parseFile } from '../../../src/io/knowledge/pipeline/parser';
import { textPdf } from '../../helpers/pdf';

/** Services over in-memory bytes: the Parser only reads the file (the in-process test uses the real store). */
function servicesFor(bytes: Uint8Array): PipelineServices {
  return {
    tenantId: 't',
    readFile: async () => bytes,
    chat: async () => {
      throw new Error('the Parser makes no model call');
    },
    embed: async () => {
      throw new Error('the Parser embeds nothing');
    },
    readTagFile: async () => null,
    describeImage: async () => {
      throw new Error('no vision model in this test');
    },
    transcribe: async () => {
      throw new Error('no speech model in this test');
    },
    progress: () => {},
  };
}

async function parse(name: string, bytes: Uint8Array, setups: Record<string, unknown> = {}): Promise<PipelinePayload> {
  const params = ParserParamsSchema.parse(Object.keys(setups).length > 0 ? { setups } : {});
  return parseFile(params, { name, file: { id: 'doc-1', name, size: bytes.length } }, servicesFor(bytes), new AbortController().signal);
}

const utf8 = (s: string) => new TextEncoder().encode(s);

async function failure(p: Promise<unknown>): Promise<AppError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

describe('Parser', () => {
  it('splits Markdown into its elements (headings, paragraphs, lists, code) as JSON items', async () => {
    const md = '# Title\n\nFirst paragraph\ncontinues here.\n\n- one\n- two\n\n```js\nlet x = 1;\n```\n';
    const out = await parse('a.md', utf8(md));
    expect(out.output_format).toBe('json');
    expect(out.json!.map((i) => i.text)).toEqual(['# Title', 'First paragraph\ncontinues here.', '- one\n- two\n', '```js\nlet x = 1;\n```']);
    expect(out.json!.every((i) => i.doc_type_kwd === 'text')).toBe(true);
  });

  it('gives Markdown as text when the setup asks for text', async () => {
    const out = await parse('a.md', utf8('# T\n\nBody.'), { markdown: { suffix: ['md'], output_format: 'text' } });
    expect(out).toMatchObject({ output_format: 'text', text: '# T\nBody.' });
  });

  it('reads a PDF text layer, an item per line with its page and box (top-left origin)', async () => {
    const out = await parse('r.pdf', textPdf(['Page one line.', 'Page two line.']));
    expect(out.json!.map((i) => [i.text, i.page_number])).toEqual([
      ['Page one line.', 1],
      ['Page two line.', 2],
    ]);
    // tests/helpers/pdf.ts writes 12 pt Helvetica at (72, 720) on a 792 pt high page.
    const [page, x0, x1, top, bottom] = (out.json![0]!._pdf_positions as number[][])[0]!;
    expect([page, x0, top, bottom]).toEqual([1, 72, 60, 72]);
    expect(x1).toBeGreaterThan(120);
    const md = await parse('r.pdf', textPdf(['Only page.']), { pdf: { suffix: ['pdf'], output_format: 'markdown' } });
    expect(md).toMatchObject({ output_format: 'markdown', markdown: 'Only page.\n' });
  });

  it('refuses PDF parse methods that need a service this build does not have', async () => {
    const err = await failure(parse('r.pdf', textPdf(['x']), { pdf: { suffix: ['pdf'], output_format: 'json', parse_method: 'MinerU' } }));
    expect(err.code).toBe('COMPONENT_UNSUPPORTED');
    expect(err.message).toMatch(/MinerU/);
  });

  it('reads DOCX paragraphs as text items and tables as table items', async () => {
    const doc = new Document({
      sections: [
        {
          children: [
            new Paragraph({ text: 'Report', heading: HeadingLevel.HEADING_1 }),
            new Paragraph('Sales rose in spring.'),
            new Table({
              rows: [new TableRow({ children: [new TableCell({ children: [new Paragraph('Q1')] }), new TableCell({ children: [new Paragraph('10')] })] })],
            }),
            new Paragraph('End of report.'),
          ],
        },
      ],
    });
    const out = await parse('r.docx', new Uint8Array(await Packer.toBuffer(doc)));
    expect(out.json!.map((i) => [i.doc_type_kwd, i.doc_type_kwd === 'table' ? /<td>.*Q1.*<\/td>/.test(i.text as string) : i.text])).toEqual([
      ['text', '# Report'],
      ['text', 'Sales rose in spring.'],
      ['table', true],
      ['text', 'End of report.'],
    ]);
  });

  it('reads a spreadsheet as an HTML table by default, rows as "header：value" lines in JSON', async () => {
    const xlsx = await writeXlsx({
      Prices: [
        { item: 'tea', price: 3 },
        { item: 'cake', price: 5 },
      ],
    });
    const html = await parse('p.xlsx', xlsx);
    expect(html.output_format).toBe('html');
    expect(html.html).toContain('<caption>Prices</caption><tr><th>item</th><th>price</th></tr><tr><td>tea</td><td>3</td></tr>');
    const json = await parse('p.xlsx', xlsx, { spreadsheet: { suffix: ['xlsx'], output_format: 'json' } });
    expect(json.json!.map((i) => i.text)).toEqual(['item：tea; price：3 ——Prices', 'item：cake; price：5 ——Prices']);
    const csv = await parse('p.csv', utf8('item,price\ntea,3\n'), { spreadsheet: { suffix: ['csv'], output_format: 'markdown' } });
    expect(csv.markdown).toBe('| item | price |\n| --- | --- |\n| tea | 3 |');
  });

  it('reads HTML through its Markdown rendering and plain text merged at sentence ends', async () => {
    const html = await parse('p.html', utf8('<h1>Hello</h1><p>Body text.</p>'));
    expect(html.json!.map((i) => i.text)).toEqual(['# Hello', 'Body text.']);
    const txt = await parse('n.txt', utf8('One. Two!\nThree?'));
    expect(txt.json!.map((i) => i.text).join('')).toContain('One. Two!');
  });

  it('reads an .eml email: wanted headers, other headers as metadata, bodies and attachments', async () => {
    const eml = [
      'From: Ada <ada@example.com>',
      'To: team@example.com',
      'Subject: =?utf-8?B?UXVhcnRlcmx5IHJlcG9ydCDinJM=?=',
      'Message-ID: <1@example.com>',
      'Content-Type: multipart/mixed; boundary="b1"',
      '',
      '--b1',
      'Content-Type: text/plain; charset=utf-8',
      'Content-Transfer-Encoding: quoted-printable',
      '',
      'Sales rose =E2=80=94 again.',
      '--b1',
      'Content-Type: text/plain; name="notes.txt"',
      'Content-Disposition: attachment; filename="notes.txt"',
      'Content-Transfer-Encoding: base64',
      '',
      Buffer.from('attached notes').toString('base64'),
      '--b1--',
      '',
    ].join('\r\n');
    const json = await parse('report.eml', utf8(eml), { email: { suffix: ['eml'], output_format: 'json' } });
    expect(json.json![0]).toMatchObject({
      from: 'Ada <ada@example.com>',
      to: 'team@example.com',
      subject: 'Quarterly report ✓',
      metadata: { 'message-id': '<1@example.com>' },
      text: 'Sales rose — again.',
      attachments: [{ filename: 'notes.txt', payload: 'attached notes' }],
      doc_type_kwd: 'text',
    });
    const text = await parse('report.eml', utf8(eml), { email: { suffix: ['eml'], output_format: 'text', fields: ['subject', 'body'] } });
    expect(text.text).toBe(
      'metadata:{"message-id": "<1@example.com>", "content-type": "multipart/mixed; boundary=\\"b1\\""}\nsubject:Quarterly report ✓\ntext:Sales rose — again.\ntext_html:\n',
    );
    const msg = await failure(parse('old.msg', new Uint8Array([1]), { email: { suffix: ['msg'], output_format: 'json' } }));
    expect(msg.code).toBe('COMPONENT_UNSUPPORTED');
  });

  it('fails clearly for file types no setup takes', async () => {
    const unknown = await failure(parse('archive.zip', new Uint8Array([1])));
    expect(unknown.code).toBe('BAD_REQUEST');
    expect(unknown.message).toMatch(/\.zip/);
  });

  it("refuses output formats RAGFlow's Parser does not allow for the type", () => {
    const r = ParserParamsSchema.safeParse({ setups: { pdf: { suffix: ['pdf'], output_format: 'html' }, markdown: { output_format: 'markdown' } } });
    expect(r.error?.issues.map((i) => i.path.join('.'))).toEqual(['setups.pdf.output_format', 'setups.markdown.output_format']);
  });
});
