/**
 * Compiler, as RAGFlow's `rag/flow/compiler/compiler.py` behaves when its template group resolves
 * to no active compilation template: the upstream output normalized into chunks (chunks and JSON
 * items keep their fields, with `text` set; a Markdown/text/HTML payload becomes one chunk) and
 * passed on. RAGFlow's compilation templates (structure and tree compilation into its knowledge
 * graph) are a subsystem this build does not have, so every group resolves to none; the progress
 * message says so.
 */
import { compilerGroups, type CompilerParams } from '../../../core/pipeline/components/Compiler';
import type { PipelineChunk, PipelinePayload, PipelineServices } from './contract';

function normalized(input: PipelinePayload): PipelineChunk[] {
  const format = input.output_format;
  if (format === 'chunks' || format === 'json') {
    const records = (format === 'chunks' ? input.chunks : input.json) ?? [];
    return records
      .filter((r): r is Record<string, unknown> & PipelineChunk => typeof r === 'object' && r !== null)
      .map((r) => {
        const text = typeof r.text === 'string' ? r.text : typeof r.content_with_weight === 'string' ? r.content_with_weight : '';
        return { ...r, text };
      });
  }
  if (format === 'markdown' || format === 'text' || format === 'html') {
    const text = input[format];
    return text && text.trim() ? [{ text }] : [];
  }
  return [];
}

export function compileChunks(p: CompilerParams, input: PipelinePayload, services: PipelineServices): PipelinePayload {
  const groups = compilerGroups(p);
  services.progress(
    0.5,
    groups.length > 0
      ? `No active compilation templates resolved from the configured groups (${groups.join(', ')}): compilation templates are not available in this build.`
      : 'No compilation template group configured: the chunks pass through.',
  );
  return { ...input, output_format: 'chunks', chunks: normalized(input) };
}
