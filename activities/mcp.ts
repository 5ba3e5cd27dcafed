/**
 * MCP activities: list a registered server's tools and call one. Connection failures are
 * retried (the request never reached the tool); a tool that reports an error or runs past the
 * agent's `mcp_timeout` answers the model with that, since repeating a tool call that may have
 * acted is not ours to decide.
 */
import { Context } from '@temporalio/activity';
import { ErrorCode as McpErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { McpCallRequest, McpCallResult, McpListRequest, McpToolInfo } from '../src/core/components/callContracts';
import { AppError } from '../src/errors';
import type { McpServerRecord, Store } from '../src/io/store/contract';
import { toFailure } from './llm';
import { abortedFailure } from './cancellation';
import { untilTemporalAnswers } from './temporalReachable';
import type { Logger } from '../src/io/log';
import { mcpFailure, mcpPolicyFromEnv } from '../src/io/mcp/connect';
import { McpPool } from '../src/io/mcp/pool';
import { listAllTools, resultText } from '../src/io/mcp/results';

export interface McpActivityDeps {
  store: Store;
  log: Logger;
  env: Record<string, string | undefined>;
  /** Shared with the API's "list tools on save"; one per worker process. */
  pool?: McpPool;
}

/** Errors that mean the session itself is broken (not an answer from the tool). */
function transportBroken(err: unknown): boolean {
  return !(err instanceof McpError) || err.code === McpErrorCode.ConnectionClosed;
}

async function serverOfRun(store: Store, runId: string, mcpId: string): Promise<McpServerRecord> {
  const run = await store.runs.getById(runId);
  if (!run) throw new AppError('NOT_FOUND', `run ${runId} does not exist`);
  const server = await store.mcpServers.get(run.tenant_id, mcpId);
  if (!server) throw new AppError('TOOL_BAD_REQUEST', `MCP server ${mcpId} is not registered for this tenant (mcp_id in the Agent's mcp list)`);
  return server;
}

/** Runs `fn`, heartbeating meanwhile, and maps failures onto the error registry. */
async function guarded<T>(what: string, maxRetries: number, log: Logger, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const ctx = Context.current();
  const started = Date.now();
  const beat = setInterval(() => ctx.heartbeat(), 1000);
  try {
    const result = await fn(ctx.cancellationSignal);
    // A call that stops early on the signal may still answer: what it did by then is not its result.
    if (ctx.cancellationSignal.aborted) throw abortedFailure(ctx);
    // A tool that may have acted must not be called again for a completion a Temporal outage dropped.
    if (Date.now() - started >= 1000) await untilTemporalAnswers(ctx);
    return result;
  } catch (err) {
    if (ctx.cancellationSignal.aborted) throw abortedFailure(ctx, err);
    // A transport error may quote the server's answer: only its HTTP status is kept.
    const appErr = err instanceof AppError ? err : mcpFailure(`${what}: the MCP server failed`, err);
    log.warn('mcp call failed', { what, code: appErr.code, attempt: ctx.info.attempt, error: appErr.message });
    throw toFailure(appErr, ctx.info.attempt > maxRetries);
  } finally {
    clearInterval(beat);
  }
}

export function createMcpActivities(deps: McpActivityDeps) {
  const pool = deps.pool ?? new McpPool(mcpPolicyFromEnv(deps.env));
  return {
    /** Lists a server's tools (once per run and server: the Agent keeps the list in its state). */
    async mcpListTools(request: McpListRequest, options: { maxRetries: number } = { maxRetries: 0 }): Promise<{ tools: McpToolInfo[] }> {
      return guarded(`list tools of MCP server ${request.mcpId}`, options.maxRetries, deps.log, async (signal) => {
        const server = await serverOfRun(deps.store, request.runId, request.mcpId);
        const tools = await pool.use(server, request.timeoutMs, (client) => listAllTools(client, { timeout: request.timeoutMs, signal }), transportBroken);
        return { tools };
      });
    },

    /** Calls one tool; the model reads the text (errors included). */
    async mcpCall(request: McpCallRequest, options: { maxRetries: number } = { maxRetries: 0 }): Promise<McpCallResult> {
      const started = Date.now();
      return guarded(`MCP tool ${request.tool}`, options.maxRetries, deps.log, async (signal) => {
        const server = await serverOfRun(deps.store, request.runId, request.mcpId);
        try {
          const result = await pool.use(
            server,
            request.timeoutMs,
            (client) => client.callTool({ name: request.tool, arguments: request.args }, undefined, { timeout: request.timeoutMs, signal }),
            transportBroken,
          );
          const isError = result.isError === true;
          const text = resultText(result as { content?: unknown; structuredContent?: unknown });
          return { text: isError ? `MCP server error: ${text}` : text, isError, elapsedMs: Date.now() - started };
        } catch (err) {
          if (err instanceof McpError && err.code === McpErrorCode.RequestTimeout) {
            return {
              text: `MCP tool ${request.tool} did not answer within ${Math.round(request.timeoutMs / 1000)} s.`,
              isError: true,
              elapsedMs: Date.now() - started,
            };
          }
          if (err instanceof McpError && err.code !== McpErrorCode.ConnectionClosed) {
            // The server refused the request (unknown tool, invalid params): the model can correct it.
            return { text: `MCP server error: ${err.message}`, isError: true, elapsedMs: Date.now() - started };
          }
          throw err;
        }
      });
    },
  };
}
