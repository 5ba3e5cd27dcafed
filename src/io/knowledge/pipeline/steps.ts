/** The pipeline steps behind the carrier seam (`PipelineSteps`): each component's behaviour, dispatched by name. */
import { paramsOf } from '../../../core/pipeline/registry';
import type { PipelineStep } from '../../../core/pipeline/types';
import { AppError } from '../../../errors';
import { compileChunks } from './compiler';
import type { ItemPlan, PipelinePayload, PipelineServices, PipelineSteps } from './contract';
import { extractorSections } from '../../../core/pipeline/components/Extractor';
import { applySectionedItems, runSectionedItems, sectionedItemCount } from './extractorSections';
import { applyExtractorItems, extractorItemCount, runExtractorItems, runExtractorOnce } from './extractor';
import { parseFile } from './parser';
import { titleChunks } from './titleChunker';
import { tokenChunks } from './tokenChunker';
import { tokenizeChunks } from './tokenizer';
import { manualChunks } from './manualChunker';
import { oneChunks } from './oneChunker';
import { pageChunks } from './pageChunker';
import { qaChunks } from './qaChunker';
import { tableChunks } from './tableChunker';

function chunked(input: PipelinePayload, chunks: PipelinePayload['chunks']): PipelinePayload {
  return { ...input, output_format: 'chunks', chunks };
}

async function runStep(step: PipelineStep, input: PipelinePayload, services: PipelineServices, signal: AbortSignal): Promise<PipelinePayload> {
  signal.throwIfAborted();
  switch (step.component) {
    case 'File':
      services.progress(1, 'File fetched.');
      return { ...input };
    case 'Parser':
      return parseFile(paramsOf(step, 'Parser'), input, services, signal);
    case 'TokenChunker':
      services.progress(0.02, 'Start to split into chunks.');
      return chunked(input, tokenChunks(paramsOf(step, 'TokenChunker'), input));
    case 'TitleChunker':
      services.progress(0.02, 'Start to chunk by title.');
      return chunked(input, titleChunks(paramsOf(step, 'TitleChunker'), input));
    case 'OneChunker':
      services.progress(0.02, 'Start to make one chunk of the document.');
      return chunked(input, oneChunks(paramsOf(step, 'OneChunker'), input));
    case 'ManualChunker':
      services.progress(0.02, 'Start to chunk the manual.');
      return chunked(input, manualChunks(paramsOf(step, 'ManualChunker'), input));
    case 'PageChunker':
      services.progress(0.02, 'Start to chunk by page.');
      return chunked(input, pageChunks(paramsOf(step, 'PageChunker'), input));
    case 'QAChunker':
      services.progress(0.02, 'Start to extract question-answer pairs.');
      return chunked(input, qaChunks(paramsOf(step, 'QAChunker'), input));
    case 'TableChunker':
      services.progress(0.02, 'Start to chunk by table row.');
      return chunked(input, tableChunks(paramsOf(step, 'TableChunker'), input));
    case 'Extractor': {
      const p = paramsOf(step, 'Extractor');
      const sections = extractorSections(p);
      // With no section asking the model, the sectioned form passes the chunks on (and sets built-in metadata).
      if (sections) return applySectionedItems(sections, input, []);
      return runExtractorOnce(p, input, services, signal);
    }
    case 'Tokenizer':
      return tokenizeChunks(paramsOf(step, 'Tokenizer'), input, services, signal);
    case 'Compiler':
      return compileChunks(paramsOf(step, 'Compiler'), input, services);
    default:
      throw new AppError('COMPONENT_UNSUPPORTED', `Unknown pipeline component ${String((step as PipelineStep).component)}`);
  }
}

function planItems(step: PipelineStep, input: PipelinePayload): ItemPlan {
  if (step.component !== 'Extractor') return { items: 0 };
  const p = paramsOf(step, 'Extractor');
  const sections = extractorSections(p);
  return { items: sections ? sectionedItemCount(sections, input) : extractorItemCount(p, input) };
}

async function runItems(
  step: PipelineStep,
  input: PipelinePayload,
  from: number,
  to: number,
  services: PipelineServices,
  signal: AbortSignal,
): Promise<unknown[]> {
  if (step.component !== 'Extractor') throw new AppError('INTERNAL', `${step.component} has no items to run`);
  const p = paramsOf(step, 'Extractor');
  const sections = extractorSections(p);
  if (sections) return runSectionedItems(p.llm_id, sections, input, from, to, services, signal);
  return runExtractorItems(p, input, from, to, services, signal);
}

function applyItems(step: PipelineStep, input: PipelinePayload, results: unknown[]): PipelinePayload {
  if (step.component !== 'Extractor') throw new AppError('INTERNAL', `${step.component} has no items to apply`);
  const p = paramsOf(step, 'Extractor');
  const sections = extractorSections(p);
  return sections ? applySectionedItems(sections, input, results) : applyExtractorItems(p, input, results);
}

export const pipelineSteps: PipelineSteps = { runStep, planItems, runItems, applyItems };
