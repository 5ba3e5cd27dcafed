/**
 * What the run page says about a run beyond its graph: its canvas (named as deleted once it is),
 * who started it (a deleted session said so, never "webhook"), and for a canceled run the reason
 * and why Temporal's UI calls the same workflow Completed.
 */
import { h } from './dom.js';

/** The canvas as the run names it: a link, or — deleted since — that fact with its last title or id. */
export function canvasFact(run, title) {
  if (run.canvas_deleted) return h('span', { 'data-role': 'canvas-name' }, 'Canvas: deleted canvas ', run.canvas_title ?? h('code', {}, run.canvas_id));
  return h(
    'span',
    { 'data-role': 'canvas-name' },
    'Canvas: ',
    h('a', { href: `#/canvases/${encodeURIComponent(run.canvas_id)}` }, title ?? run.canvas_title ?? run.canvas_id),
  );
}

export function startedByFact(sb) {
  if (!sb) return null;
  const what =
    sb.kind === 'run'
      ? h('a', { href: `#/runs/${encodeURIComponent(sb.id)}` }, 'run ', h('code', {}, sb.id.slice(0, 8)))
      : sb.kind === 'session'
        ? h('span', {}, 'a deleted session ', h('code', {}, sb.id.slice(0, 8)))
        : sb.kind === 'webhook'
          ? 'webhook'
          : `${sb.kind === 'user' ? '' : `${sb.kind} `}${sb.id}`;
  return h('span', { 'data-role': 'started-by' }, 'Started by: ', what);
}

/** Why a canceled run stopped, and why Temporal's UI calls it Completed (docs/ARCHITECTURE.md, "The run view's facts"). */
export function canceledNote(reason) {
  return h(
    'div',
    { class: 'cancel-note', 'data-role': 'cancel-reason' },
    h('strong', {}, 'Canceled'),
    reason ? `: ${reason}` : '',
    h(
      'p',
      { class: 'muted', 'data-role': 'temporal-hint' },
      'Temporal’s UI shows this workflow as Completed: a cancel is a signal the run handles itself — it ends its nodes, records run_canceled and returns — so the workflow completes normally. Its RunStatus search attribute there says canceled, as this page does.',
    ),
  );
}
