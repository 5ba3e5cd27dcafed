/**
 * ExcelProcessor: RAGFlow's spreadsheet component (agent/component/excel_processor.py). `read`
 * parses the files `input_files` references (uploads: `sys.files`, a Begin file input, another
 * node's file) into rows per sheet (`sheet_selection`: all, first, or names); `merge` joins them
 * (`merge_strategy` concat, or an outer join on `join_on`); `transform` shapes the data
 * `transform_data` references; `output` writes that data as an xlsx (a sheet per key) or CSV file
 * of the run, shown by a Message as RAGFlow's `attachment`. Outputs: `data`, `summary`, `markdown`
 * (and `attachment` for `output`). The files are read and written by the `fileTool` activity.
 */
import { z } from 'zod';
import { parseRef, type VariableRef } from '../dsl/refs';
import { executionParamsShape, str, templateRefs, uniqueRefs } from './common';
import type { ComponentContext, ComponentDef } from './definition';
import type { FileToolResult } from './callContracts';
import { fileIdsIn } from './files';
import { lazySchema } from '../dsl/lazySchema';

const lower = (def: string) => (v: unknown) => (v === null || v === undefined || v === '' ? def : typeof v === 'string' ? v.trim().toLowerCase() : v);

const ExcelProcessorParams = lazySchema(() =>
  z.looseObject({
    ...executionParamsShape,
    input_files: z.preprocess((v) => (v === null || v === undefined || v === '' ? [] : typeof v === 'string' ? [v] : v), z.array(z.string())),
    operation: z.preprocess(
      lower('read'),
      z.enum(['read', 'merge', 'transform', 'output'], { message: '[ExcelProcessor] Operation must be one of: read, merge, transform, output' }),
    ),
    sheet_selection: str('all'),
    merge_strategy: z.preprocess(lower('concat'), z.string()),
    join_on: str(''),
    transform_instructions: str(''),
    transform_data: str(''),
    output_format: z.preprocess(lower('xlsx'), z.enum(['xlsx', 'csv'], { message: '[ExcelProcessor] Output format must be xlsx or csv' })),
    output_filename: str('output'),
  }),
);

export type ExcelProcessorParams = z.infer<typeof ExcelProcessorParams>;

function refOf(text: string): VariableRef | null {
  return text.trim() ? parseRef(text.trim()) : null;
}

function fileRefs(p: ExcelProcessorParams): VariableRef[] {
  return p.input_files.flatMap((f) => {
    const r = refOf(f);
    return r ? [r] : templateRefs(f);
  });
}

/** The files a value names: markers of uploads, upload_info dicts, download infos of files the run made. */
function fileIds(value: unknown): string[] {
  const ids = fileIdsIn(value);
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (typeof v === 'string' && v.trim().startsWith('{')) {
      try {
        walk(JSON.parse(v));
      } catch {
        // not JSON
      }
    } else if (typeof v === 'object' && v !== null) {
      const o = v as Record<string, unknown>;
      const id = o.doc_id ?? o.file_id ?? o.id;
      if (typeof id === 'string' && id && !ids.includes(id)) ids.push(id);
      else if (o.type !== undefined && 'value' in o) walk(o.value);
    }
  };
  walk(value);
  return ids;
}

function preview(v: unknown): string {
  if (v === null || v === undefined) return '';
  return (typeof v === 'string' ? v : JSON.stringify(v)).slice(0, 200);
}

export const ExcelProcessor: ComponentDef<ExcelProcessorParams> = {
  name: 'ExcelProcessor',
  params: ExcelProcessorParams,
  role: 'plain',
  execution: 'activity',
  outputNames: (p) => ['data', 'summary', 'markdown', ...(p.operation === 'output' ? ['attachment'] : [])],
  inputRefs: (p) => uniqueRefs([...fileRefs(p), ...(refOf(p.transform_data) ? [refOf(p.transform_data)!] : templateRefs(p.transform_data))]),
  thoughts: () => 'Processing spreadsheets...',
  run: (p, ctx: ComponentContext) => {
    const inputs: Record<string, unknown> = {};
    const files: string[] = [];
    for (const ref of fileRefs(p)) {
      const value = ctx.resolve(ref);
      inputs[ref.expr] = preview(value);
      for (const id of fileIds(value)) if (!files.includes(id)) files.push(id);
    }
    const dataRef = refOf(p.transform_data);
    const data = dataRef ? ctx.resolve(dataRef) : p.transform_data ? ctx.render(p.transform_data) : undefined;
    if (dataRef) inputs[dataRef.expr] = preview(data);
    const args = {
      operation: p.operation,
      files,
      sheet_selection: p.sheet_selection,
      merge_strategy: p.merge_strategy,
      join_on: p.join_on,
      has_transform_data: p.transform_data.trim() !== '',
      data: data ?? null,
      output_format: p.output_format,
      output_filename: p.output_filename,
    };
    return {
      kind: 'call',
      call: { activity: 'fileTool', request: { runId: ctx.runId, componentName: 'ExcelProcessor', args } },
      summary: `ExcelProcessor ${p.operation}`,
      inputs,
    };
  },
  onResult: (_p, _ctx, result) => ({ kind: 'done', outputs: { ...(result as FileToolResult).outputs } }),
};
