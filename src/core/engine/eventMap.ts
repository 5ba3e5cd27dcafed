/**
 * The run-event contract, one map from event name to the schema of its `data`: RAGFlow's events
 * (SPEC §5, agent/canvas.py) and our extensions, exactly as the engine, the activities and the
 * API write them. It is the product's wire format, so every producer builds events through
 * {@link runEvent} or {@link EventSink} (typed against this map) and every consumer narrows with
 * {@link isEvent}. Producers are not validated at run time (the engine emits on the hot path);
 * tests validate every event they see with {@link eventProblems}, so an event the map does not
 * describe fails a test. The web page's copy (web/js/runEvents.js) and the OpenAPI document's
 * schemas are generated from this map.
 */
import { z } from 'zod';
import { ToolCallNoticeData } from '../components/workNotices';

export const RAGFLOW_EVENTS = ['workflow_started', 'node_started', 'node_finished', 'message', 'message_end', 'user_inputs', 'workflow_finished'] as const;
/**
 * Our additions, documented as extensions. An Agent's steps show as `tool_call` events, the
 * counterpart of RAGFlow's tool-use trace (Canvas.tool_use_callback); RAGFlow streams no per-step
 * agent event, so neither do we.
 */
export const EXTENSION_EVENTS = [
  'run_failed',
  'run_canceled',
  'message_retry',
  'tool_call',
  'child_event',
  'form_reminded',
  'form_escalated',
  'message_steered',
] as const;
export const RUN_EVENT_NAMES = [...RAGFLOW_EVENTS, ...EXTENSION_EVENTS] as const;
export type RunEventName = (typeof RUN_EVENT_NAMES)[number];

const anyRecord = z.record(z.string(), z.unknown());
const component = { component_id: z.string(), component_name: z.string(), component_type: z.string() };

/** Token counts of a run (RAGFlow's `usage`), `calls` being the model calls made. */
const Usage = z.strictObject({
  prompt_tokens: z.number(),
  completion_tokens: z.number(),
  total_tokens: z.number(),
  calls: z.number(),
  estimated: z.literal(true).optional(),
});

/** Citations: RAGFlow's reference, chunks and documents keyed by id. */
const Reference = z.strictObject({ chunks: anyRecord, doc_aggs: anyRecord });

/** One field of a form (UserFillUp): RAGFlow's `{name, type, optional, options, value}` and more. */
const FormField = z.looseObject({ type: z.string(), optional: z.boolean(), options: z.array(z.unknown()) });

/** The request's `inputs`, echoed back. */
const InputsEcho = anyRecord.nullable();

/** Each event's `data`. Objects are strict: a field the map does not name fails validation. */
export const EVENT_DATA = {
  workflow_started: z
    .strictObject({ inputs: InputsEcho, created_at: z.number().optional().describe('Unix seconds; written by ingestion pipelines') })
    .describe('The run started (event 1).'),
  node_started: z
    .strictObject({ inputs: z.null(), created_at: z.number(), ...component, thoughts: z.string().optional().describe('absent from ingestion pipelines') })
    .describe('A component started.'),
  node_finished: z
    .strictObject({
      inputs: anyRecord,
      outputs: anyRecord,
      ...component,
      error: z.string().nullable(),
      elapsed_time: z.number().describe('seconds'),
      created_at: z.number().describe('Unix seconds the component started'),
    })
    .describe('A component finished (error set when it failed).'),
  message: z
    .strictObject({
      content: z.string(),
      start_to_think: z.literal(true).optional(),
      end_to_think: z.literal(true).optional(),
      audio_binary: z.string().optional().describe('hex-encoded audio of a Message with auto_play (content is then empty)'),
    })
    .describe('A piece of the answer: streamed tokens, a Message’s text, or its audio.'),
  message_end: z
    .strictObject({
      status: z.string().optional(),
      attachment: anyRecord.optional(),
      downloads: z.array(anyRecord).optional(),
      reference: Reference.optional(),
    })
    .describe('A Message is complete; citations and files it showed.'),
  user_inputs: z
    .strictObject({ inputs: z.record(z.string(), FormField), tips: z.string() })
    .describe('The run pauses for a form (UserFillUp) and waits for its values.'),
  workflow_finished: z
    .strictObject({
      inputs: InputsEcho.optional(),
      outputs: z.union([anyRecord, z.string()]).describe('the last component’s outputs; RAGFlow’s cancel message for a canceled run'),
      elapsed_time: z.number().optional(),
      created_at: z.number().optional(),
      usage: Usage.optional(),
      canceled: z.literal(true).optional().describe('a canceled ingestion pipeline'),
    })
    .describe('The run ended (after run_canceled when it was canceled). Ingestion pipelines write outputs and created_at only.'),
  run_failed: z.strictObject({ error: z.string() }).describe('Extension: the run failed; its last event.'),
  run_canceled: z.strictObject({ reason: z.string() }).describe('Extension: the run was canceled; workflow_finished follows.'),
  message_retry: z
    .strictObject({ component_id: z.string(), attempt: z.number().int(), discard_chars: z.number().int() })
    .describe('Extension: a streamed answer is retried; drop the last discard_chars characters shown.'),
  tool_call: ToolCallNoticeData.extend({ component_id: z.string() }).describe('Extension: one tool call of an Agent’s round.'),
  child_event: z
    .strictObject({ component_id: z.string(), task_id: z.string(), event: z.enum(RUN_EVENT_NAMES), data: anyRecord })
    .describe('Extension: an event of a child run (InvokeCanvas), wrapped; `data` is that event’s own data.'),
  form_reminded: z
    .strictObject({
      component_id: z.string(),
      attempt: z.number().int().describe('1 for the first reminder'),
      channel: z.enum(['webhook', 'email']),
      delivered: z.boolean(),
      error: z.string().optional().describe('why the reminder could not be delivered (after its retries)'),
    })
    .describe('Extension: a paused form (UserFillUp `remind_after`) was reminded; the run still waits.'),
  form_escalated: z
    .strictObject({ component_ids: z.array(z.string()), waited_s: z.number(), goto: z.array(z.string()) })
    .describe('Extension: nobody answered the form within `escalate_after`; the run goes on at `goto`.'),
  message_steered: z
    .strictObject({
      steer_id: z.string().describe('the request’s message id (Idempotency-Key or message_id): a retried request shows once'),
      content: z.string(),
      component_ids: z.array(z.string()).describe('the Agents that take it before their next model request; empty: none could any more'),
    })
    .describe('Extension: a message sent while the run works (message_policy steer) reached its running Agents.'),
} satisfies Record<RunEventName, z.ZodType>;

export type EventData<K extends RunEventName> = z.infer<(typeof EVENT_DATA)[K]>;

/** Every event's envelope. */
export const EventEnvelope = z.object({
  seq: z.number().int(),
  /** 0 for engine events; 1..n for tokens streamed into a reserved slot. */
  sub: z.number().int(),
  message_id: z.string(),
  /** Unix seconds (RAGFlow stamps every event of a run with the run's start). */
  created_at: z.number(),
  task_id: z.string(),
});
export type EventEnvelope = z.infer<typeof EventEnvelope>;

const eventOf = <K extends RunEventName>(name: K) => EventEnvelope.extend({ event: z.literal(name), data: EVENT_DATA[name] });

/** A run event, discriminated by its name. */
export const RunEventSchema = z.discriminatedUnion('event', [
  eventOf('workflow_started'),
  eventOf('node_started'),
  eventOf('node_finished'),
  eventOf('message'),
  eventOf('message_end'),
  eventOf('user_inputs'),
  eventOf('workflow_finished'),
  eventOf('run_failed'),
  eventOf('run_canceled'),
  eventOf('message_retry'),
  eventOf('tool_call'),
  eventOf('child_event'),
  eventOf('form_reminded'),
  eventOf('form_escalated'),
  eventOf('message_steered'),
]);
export type RunEvent = z.infer<typeof RunEventSchema>;
export type RunEventOf<K extends RunEventName> = Extract<RunEvent, { event: K }>;
/** An event's name and data without its envelope, the pair typed together. */
export type EventBody = { [K in RunEventName]: { event: K; data: EventData<K> } }[RunEventName];

/** Builds an event: the one place an event's name and data meet, so the compiler checks the pair. */
export function runEvent<K extends RunEventName>(envelope: EventEnvelope, event: K, data: EventData<K>): RunEventOf<K> {
  // The engine's key order, so the events workflows hand to activities serialize as they always did.
  const { seq, sub, message_id, created_at, task_id } = envelope;
  return { seq, sub, event, message_id, created_at, task_id, data } as RunEventOf<K>;
}

/** Narrows an event (typed or read from anywhere) to one name, with that name's data. */
export function isEvent<K extends RunEventName, E extends { event: string }>(e: E, name: K): e is E & { event: K; data: EventData<K> } {
  return e.event === name;
}

export function isRunEventName(name: string): name is RunEventName {
  return (RUN_EVENT_NAMES as readonly string[]).includes(name);
}

/**
 * Why an event does not fit the map (empty when it does), each problem naming its JSON path. A
 * child_event's wrapped event is checked against its own name's schema too.
 */
export function eventProblems(e: unknown): string[] {
  const parsed = RunEventSchema.safeParse(e);
  if (!parsed.success) return parsed.error.issues.map((i) => `${describeEvent(e)} $.${i.path.join('.')}: ${i.message}`);
  const ev = parsed.data;
  if (ev.event !== 'child_event') return [];
  const inner = EVENT_DATA[ev.data.event].safeParse(ev.data.data);
  return inner.success ? [] : inner.error.issues.map((i) => `${describeEvent(e)} $.data.data.${i.path.join('.')}: ${i.message} (a wrapped ${ev.data.event})`);
}

function describeEvent(e: unknown): string {
  const o = (e ?? {}) as { event?: unknown; seq?: unknown; sub?: unknown };
  return `event ${JSON.stringify(o.event)} (${String(o.seq)}-${String(o.sub)})`;
}
