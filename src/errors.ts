/**
 * The one error registry. Every error the product raises on purpose has a code listed here with
 * its category and how the HTTP API reports it: our own routes use `http`, RAGFlow-compatible
 * routes keep HTTP 200 and put `ragflow` (RAGFlow's RetCode) in the envelope.
 *
 * Type guards look at `code`, never at message text. This module imports nothing so that every
 * layer (workflow sandbox included) can use it.
 */

export type ErrorCategory = 'user' | 'system' | 'third-party';

interface ErrorSpec {
  readonly category: ErrorCategory;
  readonly http: number;
  readonly ragflow: number;
  /** Whether an activity failing with this code should be retried by Temporal. */
  readonly retryable: boolean;
}

export const ERROR_REGISTRY = {
  /** The canvas DSL failed validation; details.problems lists every problem with its JSON path. */
  DSL_INVALID: { category: 'user', http: 400, ragflow: 101, retryable: false },
  /** A request body, query string or header failed validation. */
  BAD_REQUEST: { category: 'user', http: 400, ragflow: 101, retryable: false },
  /** A value is larger than its configured limit (query, inputs, files, DSL); the message names the field and the limit. */
  PAYLOAD_TOO_LARGE: { category: 'user', http: 413, ragflow: 101, retryable: false },
  /** A resource does not exist or belongs to another tenant (the two are indistinguishable on purpose). */
  NOT_FOUND: { category: 'user', http: 404, ragflow: 102, retryable: false },
  /** No access to the resource (RAGFlow reports missing agents this way on some routes). */
  NO_PERMISSION: { category: 'user', http: 404, ragflow: 103, retryable: false },
  /** A unique name is already taken, e.g. an agent title. */
  DUPLICATE: { category: 'user', http: 409, ragflow: 102, retryable: false },
  /** The operation conflicts with the current state, e.g. a session already has a run in progress. */
  CONFLICT: { category: 'user', http: 409, ragflow: 102, retryable: false },
  /**
   * A message sent with message_policy `steer` that the running turn cannot take now: no Agent of
   * the run is in a model round (it waits at a form, runs another component, or is ending). The
   * message names where the run is; nothing was applied.
   */
  MESSAGE_NOT_STEERED: { category: 'user', http: 409, ragflow: 102, retryable: false },
  /** Missing or unknown API key. */
  UNAUTHENTICATED: { category: 'user', http: 401, ragflow: 109, retryable: false },
  /** Too many failed attempts (API keys) from one client address: retry after the Retry-After header's seconds. */
  TOO_MANY_REQUESTS: { category: 'user', http: 429, ragflow: 429, retryable: false },
  /** A component's parameters cannot be used as given (bad template, unknown operator...). */
  COMPONENT_PARAMS: { category: 'user', http: 400, ragflow: 101, retryable: false },
  /** A variable reference points at something that does not exist at run time. */
  VARIABLE_NOT_FOUND: { category: 'user', http: 400, ragflow: 101, retryable: false },
  /** The component cannot run in this build (it validates, but its executor is not available). */
  COMPONENT_UNSUPPORTED: { category: 'user', http: 400, ragflow: 101, retryable: false },
  /** The model provider rejected the request as malformed (HTTP 400/404/422): retrying will not help. */
  LLM_BAD_REQUEST: { category: 'third-party', http: 502, ragflow: 100, retryable: false },
  /** The model provider refused our credentials (HTTP 401/403): a configuration problem. */
  LLM_AUTH: { category: 'third-party', http: 502, ragflow: 100, retryable: false },
  /** The model provider failed or could not be reached (5xx, 429, network): worth retrying. */
  LLM_UNAVAILABLE: { category: 'third-party', http: 502, ragflow: 100, retryable: true },
  /** The model's answer could not be used (e.g. no parsable JSON for a structured output). */
  LLM_BAD_OUTPUT: { category: 'third-party', http: 502, ragflow: 100, retryable: true },
  /** The model's stream ended before the model said it was done (no finish_reason): the answer is incomplete, worth retrying. */
  LLM_INCOMPLETE: { category: 'third-party', http: 502, ragflow: 100, retryable: true },
  /** The worker running the call is shutting down: another worker (or this one restarted) retries it. */
  WORKER_STOPPING: { category: 'system', http: 503, ragflow: 100, retryable: true },
  /**
   * A newer attempt of the same streaming call owns its stream slot: the store refused this
   * attempt's writes (it stalled past its heartbeat timeout and was retried), so it stops.
   */
  STREAM_SUPERSEDED: { category: 'system', http: 409, ragflow: 100, retryable: true },
  /** A tool's service refused our credentials (HTTP 401/403), or none are configured. */
  TOOL_AUTH: { category: 'third-party', http: 502, ragflow: 100, retryable: false },
  /** A tool's service rejected the request as malformed. */
  TOOL_BAD_REQUEST: { category: 'third-party', http: 502, ragflow: 100, retryable: false },
  /** A tool's service failed or could not be reached: worth retrying. */
  TOOL_UNAVAILABLE: { category: 'third-party', http: 502, ragflow: 100, retryable: true },
  /** A sub-agent's run failed. */
  SUB_AGENT_FAILED: { category: 'user', http: 502, ragflow: 100, retryable: false },
  /**
   * A run or tenant budget (max_cost, max_tokens) would be exceeded by the next model call: the
   * call is not made and the run fails (src/io/llm/budgets.ts names the budget in the message).
   */
  BUDGET_EXCEEDED: { category: 'user', http: 402, ragflow: 100, retryable: false },
  /** The run was canceled. */
  RUN_CANCELED: { category: 'user', http: 409, ragflow: 102, retryable: false },
  /** The store (Postgres/PGlite) failed. */
  STORE_UNAVAILABLE: { category: 'system', http: 503, ragflow: 100, retryable: true },
  /** Temporal could not be reached or refused the call. */
  TEMPORAL_UNAVAILABLE: { category: 'system', http: 503, ragflow: 100, retryable: true },
  /** Anything unexpected. */
  INTERNAL: { category: 'system', http: 500, ragflow: 100, retryable: true },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERROR_REGISTRY;

/** One located problem, e.g. a DSL validation finding or a request field error. */
export interface Problem {
  /** JSON path of the offending value, e.g. `$.components["Agent:X"].downstream[0]`. */
  path: string;
  message: string;
}

export interface AppErrorDetails {
  problems?: Problem[];
  [key: string]: unknown;
}

/** The error type every layer throws on purpose. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: AppErrorDetails;

  constructor(code: ErrorCode, message: string, details: AppErrorDetails = {}) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.details = details;
  }

  get category(): ErrorCategory {
    return ERROR_REGISTRY[this.code].category;
  }

  get retryable(): boolean {
    return ERROR_REGISTRY[this.code].retryable;
  }
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(ERROR_REGISTRY, value);
}

/** True when `err` is an AppError, optionally with one of the given codes. */
export function isAppError(err: unknown, ...codes: ErrorCode[]): err is AppError {
  if (!(err instanceof AppError)) return false;
  return codes.length === 0 || codes.includes(err.code);
}

export function errorSpec(code: ErrorCode): ErrorSpec {
  return ERROR_REGISTRY[code];
}

/** Renders problems as a readable multi-line message. */
export function describeProblems(summary: string, problems: Problem[]): string {
  const lines = problems.map((p) => `- ${p.path}: ${p.message}`);
  return [`${summary} (${problems.length} problem${problems.length === 1 ? '' : 's'}):`, ...lines].join('\n');
}
