/**
 * DocGenerator: RAGFlow's document generator (agent/component/docs_generator.py). The node renders
 * `content` (a template) here and the `fileTool` activity writes the file — PDF (pdfkit), DOCX
 * (docx), txt, Markdown or HTML, with header, footer, watermark, page numbers and a timestamp —
 * into the run's files. Outputs are RAGFlow's `doc_id`, `filename`, `mime_type`, `size` and
 * `download` (the download info as JSON text; a Message referencing it lists it in
 * `message_end.downloads`). Unlike RAGFlow, `download` carries a `download_url` and no base64 copy
 * of the file: workflow history holds references, never file bytes.
 */
import { z } from 'zod';
import { bool, executionParamsShape, num, str, templateRefs, uniqueRefs } from './common';
import type { ComponentDef } from './definition';
import type { FileToolResult } from './callContracts';
import { lazySchema } from '../dsl/lazySchema';

export const DOC_OUTPUT_FORMATS = ['pdf', 'docx', 'txt', 'markdown', 'html'] as const;

const DocGeneratorParams = lazySchema(() =>
  z.looseObject({
    ...executionParamsShape,
    output_format: z.preprocess(
      (v) => (v === null || v === undefined || v === '' ? 'pdf' : typeof v === 'string' ? v.trim().toLowerCase() : v),
      z.enum(DOC_OUTPUT_FORMATS, { message: `[DocGenerator] Output format must be one of: ${DOC_OUTPUT_FORMATS.join(', ')}` }),
    ),
    content: str(''),
    filename: str(''),
    header_text: str(''),
    footer_text: str(''),
    watermark_text: str(''),
    add_page_numbers: bool(true),
    add_timestamp: bool(true),
    include_download_info_in_content: bool(false),
    font_size: num(12).refine((n) => n >= 12, '[DocGenerator] Font size must be greater than or equal to 12'),
  }),
);

export type DocGeneratorParams = z.infer<typeof DocGeneratorParams>;

/** RAGFlow's `_strip_thinking`: a model's `<think>` block is not part of the document. */
function stripThinking(text: string): string {
  return text.replace(/<think>[\s\S]*?<\/think>/gi, '').trim();
}

export const DocGenerator: ComponentDef<DocGeneratorParams> = {
  name: 'DocGenerator',
  params: DocGeneratorParams,
  role: 'plain',
  execution: 'activity',
  outputNames: () => ['doc_id', 'filename', 'mime_type', 'size', 'download'],
  inputRefs: (p) => uniqueRefs(templateRefs(p.content)),
  thoughts: (p) => `Generating ${p.output_format.toUpperCase()} document with markdown conversion...`,
  run: (p, ctx) => {
    const content = stripThinking(ctx.render(p.content));
    if (!content) return { kind: 'error', message: '[DocGenerator] Content should not be empty' };
    const args = {
      output_format: p.output_format,
      content,
      filename: ctx.render(p.filename),
      header_text: ctx.render(p.header_text),
      footer_text: ctx.render(p.footer_text),
      watermark_text: ctx.render(p.watermark_text),
      add_page_numbers: p.add_page_numbers,
      add_timestamp: p.add_timestamp,
      include_download_info_in_content: p.include_download_info_in_content,
      font_size: p.font_size,
    };
    return {
      kind: 'call',
      call: { activity: 'fileTool', request: { runId: ctx.runId, componentName: 'DocGenerator', args } },
      summary: `DocGenerator ${p.output_format}`,
      inputs: { content: content.length > 500 ? `${content.slice(0, 500)}…` : content },
    };
  },
  onResult: (_p, _ctx, result) => ({ kind: 'done', outputs: { ...(result as FileToolResult).outputs } }),
};
