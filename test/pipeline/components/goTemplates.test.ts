/**
 * RAGFlow's Go engine ingestion templates (`internal/ingestion/pipeline/template/`, copied to
 * test/fixtures/pipelines/go): every one loads, into the steps RAGFlow runs, with the Go
 * chunkers, the sectioned Extractor and the Parser's flat per-type settings read.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compilePipeline } from '../../../src/core/pipeline/compile';
import { extractorSections } from '../../../src/core/pipeline/components/Extractor';
import type { ExtractorParams } from '../../../src/core/pipeline/components/Extractor';
import { setupForFile, type ParserParams } from '../../../src/core/pipeline/components/Parser';
import type { PipelineCompileResult } from '../../../src/core/pipeline/types';

const dir = new URL('../../fixtures/pipelines/go/', import.meta.url);
const load = (name: string) => compilePipeline(readFileSync(new URL(`ingestion_pipeline_${name}.json`, dir), 'utf8'));
const steps = (r: PipelineCompileResult) => {
  if (!r.ok) throw new Error(JSON.stringify(r.problems, null, 2));
  return r.pipeline.steps;
};

const EXPECTED: Record<string, string[]> = {
  audio: ['File', 'Parser', 'OneChunker', 'Extractor', 'Tokenizer'],
  book: ['File', 'Parser', 'TitleChunker', 'Extractor', 'Tokenizer'],
  email: ['File', 'Parser', 'TokenChunker', 'Extractor', 'Tokenizer'],
  general: ['File', 'Parser', 'TokenChunker', 'Extractor', 'Tokenizer'],
  knowledge_compiler: ['File', 'Parser', 'TokenChunker', 'Compiler'],
  laws: ['File', 'Parser', 'TitleChunker', 'Extractor', 'Tokenizer'],
  manual: ['File', 'Parser', 'ManualChunker', 'Extractor', 'Tokenizer'],
  one: ['File', 'Parser', 'OneChunker', 'Extractor', 'Tokenizer'],
  paper: ['File', 'Parser', 'TitleChunker', 'Extractor', 'Tokenizer'],
  picture: ['File', 'Parser', 'OneChunker', 'Extractor', 'Tokenizer'],
  presentation: ['File', 'Parser', 'PageChunker', 'Extractor', 'Tokenizer'],
  qa: ['File', 'Parser', 'QAChunker', 'Tokenizer'],
  table: ['File', 'Parser', 'TableChunker', 'Tokenizer'],
};

describe("RAGFlow's Go engine ingestion templates", () => {
  it('are all here: 13 templates', () => {
    const names = readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .map((f) => f.replace(/^ingestion_pipeline_|\.json$/g, ''));
    expect(names.sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  for (const [name, want] of Object.entries(EXPECTED))
    it(`loads ${name} into ${want.join(' → ')}`, () => {
      expect(steps(load(name)).map((s) => s.component)).toEqual(want);
    });

  it("reads the Extractor's sections (all off in the templates) instead of a field_name", () => {
    const extractor = steps(load('general')).find((s) => s.component === 'Extractor')!;
    expect(extractorSections(extractor.params as ExtractorParams)).toMatchObject({
      keywords: { top_n: 0 },
      summary: { enabled: false },
      tags: { tag_file_id: '' },
    });
  });

  it('reads the flat Parser settings per file type, keeping defaults for the types a template does not list', () => {
    const setups = (steps(load('picture'))[1]!.params as ParserParams).setups;
    expect(Object.keys(setups).slice(0, 2)).toEqual(['image', 'video']);
    expect(setups.image).toMatchObject({ parse_method: 'ocr', suffix: ['bmp', 'gif', 'jpeg', 'jpg', 'png', 'svg', 'tif', 'tiff', 'webp'] });
    expect(setups.slides).toMatchObject({ suffix: ['pptx', 'ppt'] });
    const table = (steps(load('table'))[1]!.params as ParserParams).setups;
    expect(table.spreadsheet).toMatchObject({ output_format: 'html', column_mode: 'auto' });
  });

  it("picks a setup by the file's family when no suffix list names the extension, as the Go engine does", () => {
    const params = steps(load('one'))[1]!.params as ParserParams;
    expect(params.setups.spreadsheet!.suffix).toEqual(['xls', 'xlsx']);
    expect(setupForFile(params, 'prices.csv')?.type).toBe('spreadsheet');
    expect(setupForFile(params, 'archive.zip')).toBeNull();
  });
});
