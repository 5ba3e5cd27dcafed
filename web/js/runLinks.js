/** The run page's links to what surrounds a run: its session, conversation, parent and child runs, the Temporal UI. */
import { h } from './dom.js';

/** Links to the run's session (its runs and, unless deleted, its conversation), parent and children. */
export function runLinks(run) {
  return [
    run.session_id
      ? h('a', { href: `#/runs?session_id=${encodeURIComponent(run.session_id)}` }, run.session_deleted ? 'deleted session’s runs' : 'session’s runs')
      : null,
    run.session_id && !run.session_deleted
      ? h('a', { href: `#/sessions/${encodeURIComponent(run.canvas_id)}/${encodeURIComponent(run.session_id)}`, 'data-role': 'session-link' }, 'conversation')
      : null,
    run.parent_run_id ? h('a', { href: `#/runs/${encodeURIComponent(run.parent_run_id)}` }, 'parent run') : null,
    ...(run.children ?? []).map((c, i) =>
      h('a', { href: `#/runs/${encodeURIComponent(c.task_id)}`, 'data-role': 'child-run' }, `child run ${i + 1} (${c.status})`),
    ),
  ];
}

export function temporalLink(config, workflowId) {
  if (!config?.temporal_ui_url) return null;
  const base = config.temporal_ui_url.replace(/\/$/, '');
  const href = `${base}/namespaces/${encodeURIComponent(config.temporal_namespace ?? 'default')}/workflows/${encodeURIComponent(workflowId)}`;
  return h('a', { href, target: '_blank', rel: 'noopener noreferrer', class: 'button', 'data-role': 'temporal-link' }, 'Open in Temporal UI');
}
