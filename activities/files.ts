/**
 * The `fileTool` activity: DocGenerator and ExcelProcessor read and write the run's files in the
 * store (never through workflow history) and answer their outputs, files as references.
 */
import { Context } from '@temporalio/activity';
import type { FileToolRequest, FileToolResult } from '../src/core/components/callContracts';
import { AppError } from '../src/errors';
import { docGenerator, excelProcessor, type FileToolContext } from '../src/io/files/fileTools';
import type { Logger } from '../src/io/log';
import type { Store } from '../src/io/store/contract';
import { toFailure } from './llm';

const TOOLS: Record<string, (ctx: FileToolContext, args: Record<string, unknown>) => Promise<Record<string, unknown>>> = {
  DocGenerator: docGenerator,
  ExcelProcessor: excelProcessor,
};

export function createFileActivities(deps: { store: Store; log: Logger }) {
  return {
    async fileTool(request: FileToolRequest, options: { maxRetries: number }): Promise<FileToolResult> {
      const ctx = Context.current();
      const exhausted = ctx.info.attempt > options.maxRetries;
      try {
        const tool = TOOLS[request.componentName];
        if (!tool) throw new AppError('COMPONENT_UNSUPPORTED', `${request.componentName} makes no files`);
        const run = await deps.store.runs.getById(request.runId);
        if (!run) throw new AppError('NOT_FOUND', `run ${request.runId} does not exist`);
        ctx.heartbeat();
        const outputs = await tool({ files: deps.store.files, tenantId: run.tenant_id, runId: run.id }, request.args);
        return { outputs };
      } catch (err) {
        if (ctx.cancellationSignal.aborted) throw ctx.cancellationSignal.reason ?? err;
        const appErr = err instanceof AppError ? err : new AppError('TOOL_UNAVAILABLE', err instanceof Error ? err.message : String(err));
        deps.log.warn('file tool failed', { tool: request.componentName, code: appErr.code, attempt: ctx.info.attempt, error: appErr.message });
        throw toFailure(appErr, exhausted);
      }
    },
  };
}
