/**
 * The component contract. A component is a params schema plus pure logic: it reads the canvas
 * through a {@link ComponentContext} and answers with an {@link Outcome}. Components that need
 * the outside world (a model, a tool) return a `call` outcome; the engine has the workflow carry
 * it out as an activity and hands the result back to {@link ComponentDef.onResult}.
 */
import type { z } from 'zod';
import type { PathSegment } from '../dsl/jsonPath';
import type { VariableRef } from '../dsl/refs';
import type { ActivityCall, ChatMessage } from './callContracts';
import type { ToolCallNoticeData } from './workNotices';

/** How the engine treats a component beyond running it. */
export type ComponentRole =
  /** Entry point; receives the run inputs. */
  | 'begin'
  /** Renders and streams a message to the user (Message). */
  | 'message'
  /** Legacy turn boundary (RAGFlow v0.x `Answer`): shows the upstream output and ends the turn. */
  | 'answer'
  /** Picks its successors itself through the `_next` output (Categorize, Switch). */
  | 'router'
  /** Pauses the run for a person's input (UserFillUp). */
  | 'form'
  /** Starts a loop whose body are the components with this one as `parent_id` (Iteration, Loop). */
  | 'container'
  /** The start of a loop body, run once per pass; ends the loop (IterationItem, LoopItem). */
  | 'loopItem'
  /** Leaves the enclosing Loop (ExitLoop). */
  | 'exitLoop'
  /** Anything else. */
  | 'plain';

/** Read-only view of the canvas topology. */
export interface CanvasView {
  has(id: string): boolean;
  /** The component's `component_name`, e.g. `LLM`. */
  typeOf(id: string): string;
  /** The name the editor gave the node (`graph.nodes[].data.name`), or "". */
  displayName(id: string): string;
  downstream(id: string): readonly string[];
  upstream(id: string): readonly string[];
  parentId(id: string): string | null;
  /** Components whose `parent_id` is `id` (a loop's body). */
  childrenOf(id: string): readonly string[];
  roleOf(id: string): ComponentRole;
  /** Begin's prologue (the greeting a new session starts with). */
  prologue(): string;
}

/** What a running component may read. Provided by the engine; every method is pure. */
export interface ComponentContext {
  readonly id: string;
  /** The run's task id (activities use it to find the run's canvas version). */
  readonly runId: string;
  /** Where this component's params sit in the stored canvas (tools read their real params there). */
  readonly paramsPath: PathSegment[];
  readonly canvas: CanvasView;
  /** Current value of a reference (`undefined` when the output is not set). */
  resolve(ref: VariableRef): unknown;
  /** Renders every reference in a template. */
  render(text: string): string;
  readonly globals: Readonly<Record<string, unknown>>;
  /** The last `windowSize` exchanges of the conversation, RAGFlow's `get_history`. */
  history(windowSize: number): ChatMessage[];
  /** The `inputs` the run was started or resumed with. */
  readonly runInputs: Readonly<Record<string, unknown>>;
  /** The run path so far and this component's position in it. */
  readonly path: readonly string[];
  readonly position: number;
  /** Outputs of another component. */
  outputsOf(id: string): Readonly<Record<string, unknown>>;
  /** Whether the run has gathered citable knowledge so far (retrieved chunks). */
  hasReference(): boolean;
  /** The parsed params of another component (a loop item reads its loop's). */
  paramsOf(id: string): Readonly<Record<string, unknown>>;
  /** Whether the model calls tools natively (an Agent's `auto` strategy). */
  supportsToolCalling(llmId: string): boolean;
  /** A loop item: the passes made so far in the current run of its loop. */
  readonly loopPass: number;
  /** Whether an Iteration with `max_concurrency` > 0 may fan its items out (the run was started under its patch). */
  readonly parallelItems: boolean;
  /** A form (UserFillUp): the values a person submitted for it, or that the wait expired. */
  readonly form: { values: Readonly<Record<string, unknown>> | null; expired: boolean; waitedS: number | null; escalated: boolean };
  /** The webhook request a Webhook-mode run was started by (`query`, `headers`, `body`, `input`). */
  readonly webhook: Readonly<Record<string, unknown>> | null;
  /** The function description of a tool component, as a model sees it. */
  describeTool(componentName: string, params: unknown): { meta: ToolMeta } | { error: string };
  /** The call a tool use makes when the tool has its own (else null: the generic `toolInvoke`). */
  toolCall(componentName: string, params: unknown, args: Record<string, unknown>, paramsPath: PathSegment[]): ActivityCall | null;
}

/** A tool's description for the model (RAGFlow's ToolMeta). */
export interface ToolMeta {
  name: string;
  description: string;
  parameters: Record<string, ToolParamSpec>;
}

export interface ToolParamSpec {
  type: string;
  description: string;
  default?: unknown;
  enum?: string[];
  items?: Record<string, unknown>;
  required?: boolean;
}

/** One field of an input form: RAGFlow's `{name, type, optional, options, value}` and more. */
export interface FormFieldSpec {
  type: string;
  optional: boolean;
  options: unknown[];
  name?: string;
  key?: string;
  value?: unknown;
  [extra: string]: unknown;
}

/** A write to a variable (VariableAssigner). */
export interface VariableWrite {
  ref: VariableRef;
  value: unknown;
}

/** A notice a component emits while it works (an extension event, e.g. a tool call); not the run's `progress` query. */
export interface WorkNotice {
  event: 'tool_call';
  data: ToolCallNoticeData;
}

/** One call of a `calls` outcome. */
export interface PlannedCall {
  call: ActivityCall;
  summary: string;
}

/** What a call came back with, as `onResult` sees it for a `calls` outcome. */
export type CallOutcome = { ok: true; value: unknown } | { ok: false; error: string; code?: string };

interface OutcomeExtras {
  /** Values shown as the node's `inputs` in `node_finished`; defaults to the input refs. */
  inputs?: Record<string, unknown>;
  notices?: WorkNotice[];
  /** Citations to add to the run's reference (retrieval and search tools). */
  reference?: ReferenceAddition;
}

export type Outcome =
  | (OutcomeExtras & {
      kind: 'done';
      outputs: Record<string, unknown>;
      /** Successors chosen by a router (also kept as the `_next` output). */
      next?: string[];
      writes?: VariableWrite[];
      /** A loop item: the loop is over (no more items, a termination condition, the pass limit). */
      loopEnd?: boolean;
    })
  | (OutcomeExtras & { kind: 'error'; message: string })
  /** One call; a failure fails the node (after the call's own retries). */
  | (OutcomeExtras & { kind: 'call'; call: ActivityCall; summary: string; memo?: unknown })
  /** Several calls at once; `onResult` gets every outcome, failures included (tool calls). */
  | (OutcomeExtras & {
      kind: 'calls';
      calls: PlannedCall[];
      memo?: unknown;
      /** At most this many of these calls in flight at once (a parallel Iteration's `max_concurrency`); else the run's bound. */
      maxConcurrency?: number;
    });

/** Chunks and documents a component found, keyed like RAGFlow's run reference. */
export interface ReferenceAddition {
  chunks: Record<string, unknown>;
  doc_aggs: Record<string, unknown>;
}

/** A reference found in params, for validation. */
export interface ParamRef {
  path: PathSegment[];
  ref: VariableRef;
}

/** A component id a component can send the run to, for validation. */
export interface ParamTarget {
  path: PathSegment[];
  target: string;
}

/** A component embedded in another's params (an Agent's `tools`). */
export interface NestedComponent {
  path: PathSegment[];
  componentName: string;
  params: unknown;
}

/** Retry and timeout settings every component accepts (RAGFlow's ComponentParamBase). */
export interface ExecutionParams {
  max_retries: number;
  delay_after_error: number;
  exception_method: 'goto' | 'comment' | null;
  exception_goto: string[];
  exception_default_value: string | null;
  /** Per-component timeout in seconds (RAGFlow: COMPONENT_EXEC_TIMEOUT); null = the default. */
  timeout: number | null;
}

/**
 * A component definition. `P` is the parsed params type (`z.infer` of `params`). Methods use
 * method syntax so heterogeneous definitions fit one registry map.
 */
export interface ComponentDef<P extends ExecutionParams = ExecutionParams> {
  /** RAGFlow's `component_name`. */
  readonly name: string;
  /**
   * Accepts RAGFlow's param names and defaults; unknown keys are kept. Declare it with
   * `lazySchema(() => z.looseObject({...}))` (src/core/dsl/lazySchema.ts), as every module-scope
   * schema in src/core is: workflow code evaluates these modules anew for every run, and a lazy
   * schema is only built when a canvas uses the component (shared pieces such as
   * `executionParamsShape` wrap each field the same way).
   */
  readonly params: z.ZodType<P>;
  /**
   * Older spellings of params the schema still reads, old name → current name (Generate's
   * `prompt` → `sys_prompt`): validation reports a problem where the canvas wrote it.
   */
  readonly legacyParams?: Readonly<Record<string, string>>;
  readonly role: ComponentRole;
  /** `inline` runs in workflow code; `activity` asks for calls. */
  readonly execution: 'inline' | 'activity';
  /**
   * Whether its `content` may be handed to a downstream Message as a token stream (LLM, Agent,
   * Generate without structured output). The engine then plans the call when the Message renders.
   */
  streamsContent?(params: P): boolean;
  /** Output names shown in the editor and validated by VariableAggregator et al. */
  outputNames(params: P): string[];
  /**
   * References this component reads as inputs. The engine defers the component until their
   * components are on the path (RAGFlow's dependency check) and reports their values.
   */
  inputRefs(params: P): VariableRef[];
  /** Every reference in params (braced or bare), for validation. Defaults to a deep scan. */
  paramRefs?(params: P): ParamRef[];
  /** Component ids the params route to (Categorize `to`, Switch `to`...), for validation. */
  targets?(params: P): ParamTarget[];
  /**
   * Form components (UserFillUp): the fields a person must fill in and the tips shown with them.
   * The engine pauses the run before the component runs and asks for them.
   */
  form?(params: P, ctx: ComponentContext): { fields: Record<string, FormFieldSpec>; tips: string };
  /** Present on components an Agent can call as a tool. */
  readonly tool?: {
    /** The function the model sees. */
    meta(params: P): ToolMeta;
    /**
     * The call a tool use makes, when it is not the generic `toolInvoke` activity (InvokeCanvas
     * runs a child canvas). `params` are the tool's params as the DSL lists them.
     */
    call?(params: P, args: Record<string, unknown>, ctx: ComponentContext, paramsPath: PathSegment[]): ActivityCall;
  };
  /** Components embedded in params (an Agent's tools), validated like canvas components. */
  nested?(params: P): NestedComponent[];
  /** The `thoughts` text of `node_started`. */
  thoughts(params: P, ctx: ComponentContext): string;
  /** Runs the component (inline) or plans its first call (activity). */
  run(params: P, ctx: ComponentContext): Outcome;
  /**
   * For `message` and `answer` roles: the template the engine renders and streams after the
   * batch ran (RAGFlow streams Message content in its post-processing step).
   */
  messageTemplate?(params: P, ctx: ComponentContext): string;
  /**
   * Receives a call's result (the value of a `call` outcome, or the `CallOutcome[]` of a `calls`
   * outcome); answers with outputs, an error, or the next call(s).
   */
  onResult?(params: P, ctx: ComponentContext, result: unknown, memo: unknown): Outcome;
}
