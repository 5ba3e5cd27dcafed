/**
 * The `toolInvoke` activity: runs a tool component (as an Agent tool or a canvas node) with its
 * real params, keeps large results out of workflow history, and reports failures so that bad
 * requests are not retried and outages are.
 */
import { Context } from '@temporalio/activity';
import { BLOB_THRESHOLD, blobMarker } from '../../src/components/blobs';
import type { ToolInvokeRequest, ToolInvokeResult } from '../../src/components/calls';
import { AppError } from '../../src/errors';
import type { Store } from '../../src/store/types';
import { toFailure } from '../llm';
import type { Logger } from '../log';
import { loadToolParams } from './params';
import { tavilyExtract, tavilySearch } from './tavily';
import type { ToolExecutor } from './types';

const EXECUTORS: Readonly<Record<string, ToolExecutor>> = {
  TavilySearch: tavilySearch,
  TavilyExtract: tavilyExtract,
};

export interface ToolActivityDeps {
  store: Store;
  log: Logger;
  env: Record<string, string | undefined>;
}

export function createToolActivities(deps: ToolActivityDeps) {
  return {
    /** Runs one tool call. */
    async toolInvoke(request: ToolInvokeRequest, options: { maxRetries: number }): Promise<ToolInvokeResult & { preview?: string }> {
      const ctx = Context.current();
      const started = Date.now();
      const exhausted = ctx.info.attempt > options.maxRetries;
      const executor = EXECUTORS[request.componentName];
      try {
        if (!executor) throw new AppError('COMPONENT_UNSUPPORTED', `The ${request.componentName} tool cannot run in this build yet`);
        const { params, tenantId } = await loadToolParams(deps.store, request.runId, request.paramsPath);
        ctx.heartbeat();
        const result = await executor({ params, args: request.args, env: deps.env, signal: ctx.cancellationSignal, tenantId });
        let text = result.text;
        let preview: string | undefined;
        if (text.length > BLOB_THRESHOLD) {
          // Long results stay in the store; history carries a marker the model activity expands.
          preview = text.slice(0, 1000);
          text = blobMarker(await deps.store.blobs.put(request.runId, text));
        }
        const outputs = request.asTool ? {} : result.outputs;
        return { ...result, outputs, text, ...(preview ? { preview } : {}), elapsedMs: Date.now() - started };
      } catch (err) {
        if (ctx.cancellationSignal.aborted) throw ctx.cancellationSignal.reason ?? err;
        const appErr = err instanceof AppError ? err : new AppError('TOOL_UNAVAILABLE', err instanceof Error ? err.message : String(err));
        deps.log.warn('tool call failed', { tool: request.componentName, code: appErr.code, attempt: ctx.info.attempt, error: appErr.message });
        throw toFailure(appErr, exhausted);
      }
    },
  };
}
