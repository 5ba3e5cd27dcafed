/**
 * The run events the page reads: a generated copy of src/core/engine/eventMap.ts (do not edit;
 * run `node --import tsx scripts/webRunEvents.ts`). test/ui/webRunEvents.test.ts fails when it drifts.
 */

/** Every event name; the page names events through it, so a name the map lacks reads undefined and a test catches it. */
export const EVENT = Object.freeze({
  workflow_started: 'workflow_started',
  node_started: 'node_started',
  node_finished: 'node_finished',
  message: 'message',
  message_end: 'message_end',
  user_inputs: 'user_inputs',
  workflow_finished: 'workflow_finished',
  run_failed: 'run_failed',
  run_canceled: 'run_canceled',
  message_retry: 'message_retry',
  tool_call: 'tool_call',
  child_event: 'child_event',
  form_reminded: 'form_reminded',
  form_escalated: 'form_escalated',
  message_steered: 'message_steered',
});

/** RAGFlow's events, then our extensions. */
export const RAGFLOW_EVENTS = Object.freeze([
  'workflow_started',
  'node_started',
  'node_finished',
  'message',
  'message_end',
  'user_inputs',
  'workflow_finished',
]);
export const EXTENSION_EVENTS = Object.freeze([
  'run_failed',
  'run_canceled',
  'message_retry',
  'tool_call',
  'child_event',
  'form_reminded',
  'form_escalated',
  'message_steered',
]);

/** The fields of each event's `data`. */
export const EVENT_FIELDS = Object.freeze({
  workflow_started: Object.freeze(['inputs', 'created_at']),
  node_started: Object.freeze(['inputs', 'created_at', 'component_id', 'component_name', 'component_type', 'thoughts']),
  node_finished: Object.freeze(['inputs', 'outputs', 'component_id', 'component_name', 'component_type', 'error', 'elapsed_time', 'created_at']),
  message: Object.freeze(['content', 'start_to_think', 'end_to_think', 'audio_binary']),
  message_end: Object.freeze(['status', 'attachment', 'downloads', 'reference']),
  user_inputs: Object.freeze(['inputs', 'tips']),
  workflow_finished: Object.freeze(['inputs', 'outputs', 'elapsed_time', 'created_at', 'usage', 'canceled']),
  run_failed: Object.freeze(['error']),
  run_canceled: Object.freeze(['reason']),
  message_retry: Object.freeze(['component_id', 'attempt', 'discard_chars']),
  tool_call: Object.freeze(['round', 'tool_name', 'function', 'arguments', 'result', 'error', 'elapsed_time', 'child_task_id', 'component_id']),
  child_event: Object.freeze(['component_id', 'task_id', 'event', 'data']),
  form_reminded: Object.freeze(['component_id', 'attempt', 'channel', 'delivered', 'error']),
  form_escalated: Object.freeze(['component_ids', 'waited_s', 'goto']),
  message_steered: Object.freeze(['steer_id', 'content', 'component_ids']),
});
