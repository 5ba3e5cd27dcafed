/**
 * The pipeline compiler: RAGFlow's pipeline templates and dsl_examples load (test/fixtures/pipelines,
 * copied from RAGFlow), agent canvases are told apart, and broken canvases report every problem
 * at its JSON path.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compilePipeline, isPipelineDsl } from '../../../src/core/pipeline/compile';
import type { PipelineCompileResult } from '../../../src/core/pipeline/types';

const fixture = (name: string) => JSON.parse(readFileSync(new URL(`../../fixtures/pipelines/${name}`, import.meta.url), 'utf8')) as Record<string, unknown>;
const TEMPLATES = ['advanced_ingestion_pipeline.json', 'chunk_summary.json', 'compiler.json', 'title_chunker.json'];

function steps(r: PipelineCompileResult): string[] {
  if (!r.ok) throw new Error(`expected a pipeline, got ${JSON.stringify(r.problems, null, 2)}`);
  return r.pipeline.steps.map((s) => s.component);
}
function problems(r: PipelineCompileResult): Array<{ path: string; message: string }> {
  if (r.ok) throw new Error('expected problems');
  return r.problems.map(({ path, message }) => ({ path, message }));
}
/** The bare DSL of a template (export form or bare), deep-copied for mutation. */
function dslOf(name: string): { components: Record<string, { obj: { component_name: string; params: Record<string, unknown> }; downstream: string[] }> } {
  const v = fixture(name);
  return structuredClone((v.dsl ?? v) as never);
}

describe("RAGFlow's pipeline canvases", () => {
  it('compiles the four pipeline templates into their steps, File first', () => {
    expect(steps(compilePipeline(fixture('advanced_ingestion_pipeline.json')))).toEqual([
      'File',
      'Parser',
      'TokenChunker',
      'Extractor',
      'Extractor',
      'Extractor',
      'Extractor',
      'Tokenizer',
    ]);
    expect(steps(compilePipeline(fixture('chunk_summary.json')))).toEqual(['File', 'Parser', 'TokenChunker', 'Extractor', 'Tokenizer']);
    expect(steps(compilePipeline(fixture('compiler.json')))).toEqual(['File', 'Parser', 'TokenChunker', 'Compiler']);
    expect(steps(compilePipeline(fixture('title_chunker.json')))).toEqual(['File', 'Parser', 'TitleChunker', 'Extractor', 'Tokenizer']);
  });

  it("compiles RAGFlow's dsl_examples, warning about the stale upstream entry it never reads", () => {
    const general = compilePipeline(fixture('dsl_example_general_pdf_all.json'));
    expect(steps(general)).toEqual(['File', 'Parser', 'TokenChunker', 'Tokenizer']);
    expect(general.ok && general.warnings?.map((w) => w.path)).toEqual(['$.components["Parser:0"].upstream[0]']);
    expect(steps(compilePipeline(fixture('dsl_example_title_chunker.json')))).toEqual(['File', 'Parser', 'TokenChunker', 'TitleChunker']);
  });

  it('accepts the export form as a JSON string too', () => {
    expect(steps(compilePipeline(JSON.stringify(fixture('chunk_summary.json'))))).toHaveLength(5);
  });

  it('reads Parser setups written flat (the templates) or nested under setups, with their defaults', () => {
    const flat = compilePipeline(fixture('title_chunker.json'));
    const nested = compilePipeline(fixture('compiler.json'));
    for (const r of [flat, nested]) {
      const parser = r.ok ? r.pipeline.steps.find((s) => s.component === 'Parser')!.params : {};
      expect(parser.setups).toMatchObject({
        pdf: { output_format: 'json', suffix: ['pdf'] },
        markdown: { output_format: 'json', suffix: ['md', 'markdown', 'mdx'] },
      });
    }
    const legacy = compilePipeline(fixture('dsl_example_general_pdf_all.json'));
    const setups = (legacy.ok ? legacy.pipeline.steps[1]!.params.setups : {}) as Record<string, { suffix: string[] }>;
    expect(setups.docx!.suffix).toEqual(['doc', 'docx']);
    expect(setups['text&code']!.suffix).toEqual(['txt']);
  });

  it('normalizes the legacy Splitter and HierarchicalMerger names, ids and references', () => {
    const dsl = dslOf('title_chunker.json');
    const c = dsl.components;
    c['HierarchicalMerger:Old'] = {
      ...c['TitleChunker:WideResultsTeach']!,
      obj: { ...c['TitleChunker:WideResultsTeach']!.obj, component_name: 'HierarchicalMerger' },
    };
    delete c['TitleChunker:WideResultsTeach'];
    c['Parser:HipSignsRhyme']!.downstream = ['HierarchicalMerger:Old'];
    (c['Extractor:DryRatsGive']!.obj.params.prompts as Array<{ content: string }>)[0]!.content = 'Text:\n{HierarchicalMerger:Old@chunks}';
    const r = compilePipeline(dsl);
    expect(r.ok && r.pipeline.steps.map((s) => s.id)).toContain('TitleChunker:Old');
    expect(steps(r)).toEqual(['File', 'Parser', 'TitleChunker', 'Extractor', 'Tokenizer']);
  });

  it('tells pipeline canvases from agent canvases', () => {
    for (const t of TEMPLATES) expect(isPipelineDsl(fixture(t))).toBe(true);
    expect(isPipelineDsl({ canvas_category: 'dataflow_canvas', dsl: {} })).toBe(true);
    expect(isPipelineDsl({ canvas_type: 'Ingestion Pipeline', dsl: { components: {} } })).toBe(true);
    for (const example of ['chat_assistant.json', 'support_router.json'])
      expect(isPipelineDsl(JSON.parse(readFileSync(new URL(`../../../examples/${example}`, import.meta.url), 'utf8')) as unknown)).toBe(false);
    expect(isPipelineDsl({ components: { begin: { obj: { component_name: 'Begin', params: {} } } } })).toBe(false);
    expect(isPipelineDsl('not json')).toBe(false);
  });
});

describe('broken pipeline canvases', () => {
  it('reports an unknown component, a dangling downstream and bad params, all at once, by JSON path', () => {
    const dsl = dslOf('chunk_summary.json');
    dsl.components['TokenChunker:ModernPetsKneel']!.obj.params.delimiter_mode = 'paragraph';
    dsl.components['TokenChunker:ModernPetsKneel']!.obj.params.chunk_token_size = -3;
    dsl.components['Parser:HipSignsRhyme']!.obj.params.pdf = { output_format: 'html', suffix: ['pdf'] };
    dsl.components['Extractor:SharpTaxisSay']!.obj.params.field_name = '';
    dsl.components['Tokenizer:ShaggyShrimpsLose']!.obj.component_name = 'Embedder';
    dsl.components['Tokenizer:ShaggyShrimpsLose']!.downstream = ['Nowhere:1'];
    const found = problems(compilePipeline({ title: 'broken', canvas_type: 'Ingestion Pipeline', dsl }));
    expect(found.map((p) => p.path).sort()).toEqual(
      [
        '$.dsl.components["Extractor:SharpTaxisSay"].obj.params.field_name',
        '$.dsl.components["Parser:HipSignsRhyme"].obj.params.pdf.output_format',
        '$.dsl.components["TokenChunker:ModernPetsKneel"].obj.params.chunk_token_size',
        '$.dsl.components["TokenChunker:ModernPetsKneel"].obj.params.delimiter_mode',
        '$.dsl.components["Tokenizer:ShaggyShrimpsLose"].downstream[0]',
        '$.dsl.components["Tokenizer:ShaggyShrimpsLose"].obj.component_name',
      ].sort(),
    );
    expect(found.find((p) => p.path.endsWith('component_name'))!.message).toMatch(/unknown pipeline component "Embedder"/);
    expect(found.find((p) => p.path.endsWith('output_format'))!.message).toMatch(/json, markdown/);
  });

  it('reports a pipeline without File', () => {
    const dsl = dslOf('chunk_summary.json');
    delete (dsl.components as Record<string, unknown>).File;
    expect(problems(compilePipeline(dsl))).toEqual([{ path: '$.components', message: 'the pipeline has no "File" component (its entry)' }]);
  });

  it('reports a cycle where the downstream closes it', () => {
    const dsl = dslOf('chunk_summary.json');
    dsl.components['Tokenizer:ShaggyShrimpsLose']!.downstream = ['TokenChunker:ModernPetsKneel'];
    expect(problems(compilePipeline(dsl))).toEqual([
      {
        path: '$.components["Tokenizer:ShaggyShrimpsLose"].downstream[0]',
        message: '"Tokenizer:ShaggyShrimpsLose" → "TokenChunker:ModernPetsKneel" closes a cycle: a pipeline runs each component once, from File to the end',
      },
    ]);
  });

  it('reports TitleChunker patterns that do not compile, and token caps out of range', () => {
    const dsl = dslOf('title_chunker.json');
    const p = dsl.components['TitleChunker:WideResultsTeach']!.obj.params;
    (p.levels as string[][])[0]![1] = '^##[^#';
    p.chunk_token_cap = 64;
    expect(problems(compilePipeline(dsl)).map((x) => x.path)).toEqual([
      '$.components["TitleChunker:WideResultsTeach"].obj.params.chunk_token_cap',
      '$.components["TitleChunker:WideResultsTeach"].obj.params.levels[0][1]',
    ]);
  });

  it('reports an Extractor reference to a step whose chunks a later step replaced, or that does not exist', () => {
    const dsl = dslOf('advanced_ingestion_pipeline.json');
    const prompts = (id: string) => dsl.components[id]!.obj.params.prompts as Array<{ content: string }>;
    prompts('Extractor:LovelyPearsRest')[0]!.content = 'Text:\n{TokenChunker:BumpyStarsPress@chunks}';
    prompts('Extractor:CurlyEmusJam')[0]!.content = 'Text:\n{Ghost:1@chunks}';
    const found = problems(compilePipeline(dsl));
    expect(found.map((p) => p.path)).toEqual([
      '$.components["Extractor:LovelyPearsRest"].obj.params.prompts[0].content',
      '$.components["Extractor:CurlyEmusJam"].obj.params.prompts[0].content',
    ]);
    expect(found[0]!.message).toMatch(/"Extractor:LazyCarpetsKiss" replaces chunks/);
  });

  it('refuses a DSL that is not an object with components', () => {
    expect(problems(compilePipeline(42))).toEqual([{ path: '$', message: 'the pipeline DSL must be a JSON object with "components"' }]);
    expect(problems(compilePipeline({ components: [] }))[0]!.path).toBe('$.components');
  });
});
