/**
 * The `toolInvoke` activity: runs a tool component (as an Agent tool or a canvas node) with its
 * real params, keeps large results out of workflow history, and reports failures so that bad
 * requests are not retried and outages are.
 */
import { Context } from '@temporalio/activity';
import { BLOB_THRESHOLD, blobMarker } from '../src/core/components/blobs';
import type { ToolInvokeRequest, ToolInvokeResult } from '../src/core/components/callContracts';
import { AppError } from '../src/errors';
import type { Store } from '../src/io/store/contract';
import { toFailure } from './llm';
import { abortedFailure } from './cancellation';
import { untilTemporalAnswers } from './temporalReachable';
import type { KnowledgeDeps } from '../src/io/knowledge/search';
import type { Logger } from '../src/io/log';
import { duckDuckGoSearch } from '../src/io/tools/duckduckgo';
import { sendEmail } from '../src/io/tools/email';
import { exeSqlTool } from '../src/io/tools/exesql';
import { invokeTool } from '../src/io/tools/invoke';
import { loadToolParams } from '../src/io/tools/params';
import { RAGFLOW_TOOL_EXECUTORS } from '../src/io/tools/ragflowTools';
import { retrieve } from '../src/io/tools/retrieval';
import { searxngSearch } from '../src/io/tools/searxng';
import { tavilyExtract, tavilySearch } from '../src/io/tools/tavily';
import type { ToolExecutor } from '../src/io/tools/executor';
import { wikipediaSearch } from '../src/io/tools/wikipedia';
import { codeExec } from '../src/io/tools/codeExec';
import { textRedactor } from '../src/io/llm/callTrace';
import type { CallOptions } from './callRecord';
import { serviceCallTracer } from './serviceCallTrace';

/** The executor of every tool the `toolInvoke` activity runs, by component name. */
export const TOOL_EXECUTORS: Readonly<Record<string, ToolExecutor>> = {
  Invoke: invokeTool,
  ExeSQL: exeSqlTool,
  TavilySearch: tavilySearch,
  TavilyExtract: tavilyExtract,
  SearXNG: searxngSearch,
  DuckDuckGo: duckDuckGoSearch,
  Wikipedia: wikipediaSearch,
  Email: sendEmail,
  Retrieval: retrieve,
  CodeExec: codeExec,
  ...RAGFLOW_TOOL_EXECUTORS,
};

export interface ToolActivityDeps {
  store: Store;
  log: Logger;
  env: Record<string, string | undefined>;
  knowledge: KnowledgeDeps;
  /** Configured secret values, never shown in a call trace (src/io/llm/callTrace.ts). */
  secrets?: string[];
}

export function createToolActivities(deps: ToolActivityDeps) {
  const traces = { store: deps.store, log: deps.log, redact: textRedactor(deps.secrets ?? []) };
  return {
    /** Runs one tool call. */
    async toolInvoke(request: ToolInvokeRequest, options: CallOptions): Promise<ToolInvokeResult & { preview?: string }> {
      const ctx = Context.current();
      const started = Date.now();
      const exhausted = ctx.info.attempt > options.maxRetries;
      const executor = TOOL_EXECUTORS[request.componentName];
      try {
        if (!executor) throw new AppError('COMPONENT_UNSUPPORTED', `The ${request.componentName} tool cannot run in this build yet`);
        const { params, tenantId } = await loadToolParams(deps.store, request.runId, request.paramsPath);
        ctx.heartbeat();
        // The node's embedding and rerank requests (a Retrieval's) join its model calls' traces.
        // Histories from before the workflow passed `trace` carry none: those are not traced.
        const who = options.trace;
        const serviceCalls = who
          ? serviceCallTracer(traces, {
              tenantId,
              runId: who.runId,
              nodeId: who.nodeId,
              workflowRunId: ctx.info.workflowExecution?.runId ?? who.runId,
              activityId: ctx.info.activityId,
              attempt: ctx.info.attempt,
            })
          : undefined;
        // Heartbeat while the service works: a call slower than the heartbeat timeout (a search
        // over several pages, an SMTP exchange) must not be taken for a lost worker and retried.
        const beat = setInterval(() => ctx.heartbeat(), 1000);
        const result = await executor({
          params,
          args: request.args,
          env: deps.env,
          signal: ctx.cancellationSignal,
          tenantId,
          knowledge: deps.knowledge,
          ...(serviceCalls ? { serviceCalls } : {}),
        }).finally(() => clearInterval(beat));
        // A tool that stops early on the signal may still answer: what it did by then is not its result.
        if (ctx.cancellationSignal.aborted) throw abortedFailure(ctx);
        // A tool that may have acted (an email sent) must not be run again for a dropped completion.
        if (Date.now() - started >= 1000) await untilTemporalAnswers(ctx);
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
        if (ctx.cancellationSignal.aborted) throw abortedFailure(ctx, err);
        const appErr = err instanceof AppError ? err : new AppError('TOOL_UNAVAILABLE', err instanceof Error ? err.message : String(err));
        deps.log.warn('tool call failed', { tool: request.componentName, code: appErr.code, attempt: ctx.info.attempt, error: appErr.message });
        throw toFailure(appErr, exhausted);
      }
    },
  };
}
