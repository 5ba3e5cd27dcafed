/**
 * One node of a run, in detail: state, attempts, each execution (an Iteration's body runs once per
 * item) with its inputs, outputs, error and elapsed time, an Agent's tool calls round by round,
 * the text it streamed, and the child runs it started (links to their own run view).
 */
import { badge, duration, h, pre } from './dom.js';

function execView(x, i, total) {
  return h(
    'details',
    { class: 'exec', open: i === total - 1, 'data-exec': i },
    h(
      'summary',
      {},
      `${total > 1 ? `Execution ${i + 1} of ${total} · ` : ''}${x.finished ? duration((x.elapsed ?? 0) * 1000) : 'running…'}${x.error ? ' · error' : ''}`,
    ),
    x.error ? h('div', { class: 'error-box', 'data-role': 'node-error' }, x.error) : null,
    h('h4', {}, 'Inputs'),
    pre(x.inputs ?? {}, 'data inputs'),
    h('h4', {}, 'Outputs'),
    x.finished ? pre(x.outputs ?? {}, 'data outputs') : h('p', { class: 'muted' }, 'not finished yet'),
  );
}

function toolCallsView(calls) {
  const rounds = new Map();
  for (const c of calls) rounds.set(c.round ?? 0, [...(rounds.get(c.round ?? 0) ?? []), c]);
  return h(
    'div',
    { class: 'tool-calls' },
    h('h4', {}, `Tool calls (${calls.length})`),
    ...[...rounds].map(([round, list]) =>
      h(
        'div',
        { class: 'round', 'data-round': round },
        h('div', { class: 'round-title' }, `Round ${round}`),
        ...list.map((c) =>
          h(
            'div',
            { class: `tool-call${c.error ? ' has-error' : ''}` },
            h('div', {}, h('strong', {}, c.tool_name ?? c.function ?? 'tool'), ` · ${duration((c.elapsed_time ?? 0) * 1000)}`),
            h('div', { class: 'muted' }, 'arguments'),
            pre(c.arguments ?? {}),
            h('div', { class: 'muted' }, c.error ? 'error' : 'result'),
            pre(c.error ?? c.result ?? ''),
            c.child_task_id ? h('a', { href: `#/runs/${encodeURIComponent(c.child_task_id)}` }, 'open the sub-agent’s run') : null,
          ),
        ),
      ),
    ),
  );
}

/**
 * `n`: the node in the run model (may be absent: not reached yet); `progress`: its state from
 * the run's status query (calls made), if known; `extras`: time travel's marks and forms, shown under the title;
 * `after`: sections shown last (the model call panel, callPanel.js).
 * `canvasType`: the component's type in the canvas, for a node no event of this run names (a fork's reused node).
 */
export function nodePanel(id, n, state, progress, extras = [], after = [], canvasType = null) {
  const execs = n?.execs ?? [];
  const calls = progress?.calls;
  return h(
    'section',
    { class: 'node-panel', 'data-panel-node': id },
    h('h3', {}, n?.name && n.name !== id ? `${n.name} ` : '', h('code', {}, id), ' ', badge(state)),
    ...extras,
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'Type'),
      h('dd', { 'data-role': 'node-type' }, n?.type || canvasType || '—'),
      h('dt', {}, 'Executions'),
      h('dd', {}, String(execs.length)),
      calls ? h('dt', {}, 'Calls (model rounds, tools)') : null,
      calls ? h('dd', {}, String(calls)) : null,
      h('dt', {}, 'Retried streams'),
      h('dd', {}, String(n?.retries ?? 0)),
      state === 'queued' ? h('dt', {}, 'Queued') : null,
      state === 'queued'
        ? h('dd', { 'data-role': 'queued-for' }, `for ${duration(progress?.queued_ms ?? 0)}: waiting for a free worker slot (WORKER_MAX_ACTIVITIES)`)
        : null,
      state === 'waiting_capacity' ? h('dt', {}, 'Waiting') : null,
      state === 'waiting_capacity'
        ? h('dd', { 'data-role': 'capacity-wait' }, `for ${duration(progress?.queued_ms ?? 0)}: waiting for provider capacity (PROVIDER_LIMITS)`)
        : null,
      progress?.usage?.total_tokens ? h('dt', {}, 'Tokens') : null,
      progress?.usage?.total_tokens ? h('dd', {}, String(progress.usage.total_tokens)) : null,
    ),
    execs.length === 0 && state !== 'reused' ? h('p', { class: 'muted' }, state === 'skipped' ? 'This node did not run.' : 'Not started yet.') : null,
    ...execs.map((x, i) => execView(x, i, execs.length)),
    n?.text ? h('div', {}, h('h4', {}, 'Streamed text'), h('div', { class: 'stream', 'data-role': 'node-text' }, n.text)) : null,
    n?.toolCalls?.length ? toolCallsView(n.toolCalls) : null,
    n?.steered?.length
      ? h('div', { 'data-role': 'steered' }, h('h4', {}, 'Messages steered in'), h('ul', {}, ...n.steered.map((m) => h('li', {}, m.content))))
      : null,
    n?.children?.length
      ? h(
          'div',
          {},
          h('h4', {}, 'Child runs'),
          h('ul', {}, ...n.children.map((c) => h('li', {}, h('a', { href: `#/runs/${encodeURIComponent(c.task_id)}` }, c.task_id), ` (${c.how})`))),
        )
      : null,
    ...after,
  );
}
