/**
 * A run as the page shows it, rebuilt from its event stream: each node's state and executions
 * (inputs, outputs, error, elapsed), an Agent's tool calls round by round, the text streamed so
 * far, the form a paused run waits for, child runs, and how the run ended. Pure: events in, model out.
 */
import { EVENT } from './runEvents.js';

export const CANCELED = 'Task has been canceled';

export function newRunModel() {
  return {
    status: 'running',
    nodes: {},
    started: [],
    text: '',
    pending: null,
    pausedIds: [],
    error: null,
    outputs: null,
    usage: null,
    elapsed: null,
    streamingInto: null,
    cancelReason: null,
  };
}

function node(model, id) {
  return (model.nodes[id] ??= { execs: [], toolCalls: [], steered: [], text: '', retries: 0, children: [], type: '', name: id });
}

function addChild(n, taskId, how) {
  if (taskId && !n.children.some((c) => c.task_id === taskId)) n.children.push({ task_id: taskId, how });
}

/** Applies one event (`{event, data, task_id}`) to the model. */
export function applyEvent(model, e) {
  const d = e.data ?? {};
  switch (e.event) {
    case EVENT.workflow_started:
      model.status = 'running';
      break;
    case EVENT.node_started: {
      const n = node(model, d.component_id);
      n.type = d.component_type ?? n.type;
      n.name = d.component_name ?? n.name;
      n.execs.push({ startedAt: d.created_at, inputs: d.inputs, outputs: undefined, error: null, elapsed: null, finished: false });
      if (!model.started.includes(d.component_id)) model.started.push(d.component_id);
      if (n.type === 'Message') model.streamingInto = d.component_id;
      if (model.status === 'paused') {
        model.status = 'running';
        model.pending = null;
        model.pausedIds = [];
      }
      break;
    }
    case EVENT.node_finished: {
      const n = node(model, d.component_id);
      let x = n.execs.findLast((ex) => !ex.finished);
      if (!x) n.execs.push((x = { startedAt: d.created_at }));
      Object.assign(x, { inputs: d.inputs, outputs: d.outputs, error: d.error ?? null, elapsed: d.elapsed_time ?? null, finished: true });
      if (model.streamingInto === d.component_id) model.streamingInto = null;
      break;
    }
    case EVENT.message: {
      const piece = typeof d.content === 'string' ? d.content : '';
      model.text += piece;
      if (model.streamingInto) node(model, model.streamingInto).text += piece;
      break;
    }
    case EVENT.message_retry: {
      const cut = Number(d.discard_chars) || 0;
      model.text = model.text.slice(0, Math.max(0, model.text.length - cut));
      if (model.streamingInto) {
        const m = node(model, model.streamingInto);
        m.text = m.text.slice(0, Math.max(0, m.text.length - cut));
      }
      if (d.component_id) node(model, d.component_id).retries += 1;
      break;
    }
    case EVENT.user_inputs:
      model.status = 'paused';
      model.pending = { inputs: d.inputs ?? {}, tips: d.tips ?? '' };
      break;
    case EVENT.tool_call: {
      const n = node(model, d.component_id);
      n.toolCalls.push(d);
      addChild(n, d.child_task_id, `tool ${d.tool_name ?? d.function ?? ''}`.trim());
      break;
    }
    case EVENT.message_steered:
      // A message sent while the run worked (message_policy steer): shown with each Agent that took it.
      for (const id of d.component_ids ?? []) node(model, id).steered.push({ id: d.steer_id, content: d.content ?? '' });
      break;
    case EVENT.child_event:
      addChild(node(model, d.component_id), d.task_id, 'child canvas');
      break;
    case EVENT.run_failed:
      model.status = 'failed';
      model.error = d.error ?? 'failed';
      break;
    case EVENT.run_canceled:
      model.status = 'canceled';
      model.error = CANCELED;
      model.cancelReason = typeof d.reason === 'string' ? d.reason : null;
      break;
    case EVENT.workflow_finished:
      if (model.status !== 'failed' && model.status !== 'canceled') model.status = 'finished';
      model.outputs = d.outputs;
      model.usage = d.usage ?? null;
      model.elapsed = d.elapsed_time ?? null;
      model.pending = null;
      model.pausedIds = [];
      break;
  }
  return model;
}

const ENDED = new Set(['finished', 'failed', 'canceled']);

/**
 * A node's state as the page shows it: the event stream's, except that a node whose call waits in
 * the task queue (the run detail's `nodes[id].status` is `queued`: every worker's slots are full)
 * shows as queued. Its `node_started` may not be written yet (the call writes its step's events
 * first), so a waiting node can be queued too.
 */
export function shownNodeState(model, id, progress) {
  const st = nodeState(model, id);
  // `waiting_capacity`: its model call waits for room under PROVIDER_LIMITS (api/services/queuedActivities.ts).
  const waits = ['queued', 'waiting_capacity'].includes(progress?.[id]?.status);
  return (st === 'running' || st === 'waiting') && waits ? progress[id].status : st;
}

/** A node's state: waiting, running, done, failed, canceled, skipped or paused. */
export function nodeState(model, id) {
  if (model.pausedIds.includes(id)) return 'paused';
  const n = model.nodes[id];
  const last = n?.execs.at(-1);
  if (!last) return ENDED.has(model.status) ? 'skipped' : 'waiting';
  if (!last.finished) return ENDED.has(model.status) ? 'canceled' : 'running';
  if (last.error === CANCELED) return 'canceled';
  return last.error ? 'failed' : 'done';
}

/** The calls an Agent made of one of its tools (`{name, index}` as graph.js lists them). */
export function callsOfTool(model, agentId, tool) {
  // The model calls tool `index` of the Agent's list by the function `<name>_<index>` (catalog.ts).
  const same = (a, b) => String(a ?? '').toLowerCase() === String(b ?? '').toLowerCase();
  return (model.nodes[agentId]?.toolCalls ?? []).filter((c) => same(c.tool_name, tool.name) && String(c.function ?? '').endsWith(`_${tool.index}`));
}

/** A tool's state: failed when every call of it failed, done when one succeeded, else skipped or waiting. */
export function toolState(model, agentId, tool) {
  const calls = callsOfTool(model, agentId, tool);
  if (calls.length === 0) return ENDED.has(model.status) || nodeState(model, agentId) === 'done' ? 'skipped' : 'waiting';
  return calls.every((c) => c.error) ? 'failed' : 'done';
}

/** A node's warning: `all` when every tool call it made failed, `some` when some did, else null. */
export function toolWarning(model, id) {
  const calls = model.nodes[id]?.toolCalls ?? [];
  const failed = calls.filter((c) => c.error).length;
  if (failed === 0) return null;
  return failed === calls.length ? 'all' : 'some';
}
