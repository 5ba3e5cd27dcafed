/**
 * An agent's schedules (#/schedules[/<agent>]), from `GET /api/v1/agents/{id}/schedules`: when
 * each fires (cron with its time zone, or an interval), what it asks, whether it is paused, its
 * next action times and the actions it took last; pause and unpause. Temporal lists schedules
 * eventually: one created a moment ago may need a Reload.
 */
import { get, post } from './api.js';
import { badge, h, replace } from './dom.js';

const at = (iso) => (iso ? new Date(iso).toLocaleString() : '—');

function timing(s) {
  if (s.cron?.length) return `cron ${s.cron.join(' | ')}${s.time_zone ? ` (${s.time_zone})` : ''}`;
  if (s.interval_seconds) return `every ${s.interval_seconds} s${s.offset_seconds ? ` (offset ${s.offset_seconds} s)` : ''}`;
  return '—';
}

function row(agentId, s, reload) {
  const toggle = h('button', { type: 'button', 'data-role': s.paused ? 'unpause' : 'pause' }, s.paused ? 'Unpause' : 'Pause');
  toggle.addEventListener('click', async () => {
    toggle.disabled = true;
    await post(`/api/v1/agents/${encodeURIComponent(agentId)}/schedules/${encodeURIComponent(s.id)}/${s.paused ? 'unpause' : 'pause'}`, {
      note: s.paused ? 'Unpaused from the run view' : 'Paused from the run view',
    }).finally(reload);
  });
  const last = [...(s.recent_actions ?? [])].reverse().slice(0, 3);
  return h(
    'tr',
    { 'data-schedule': s.id },
    h('td', {}, h('code', {}, s.id)),
    h('td', {}, timing(s)),
    h(
      'td',
      {},
      s.query || h('span', { class: 'muted' }, '(no query)'),
      s.session_id ? h('div', { class: 'muted' }, 'session ', h('code', {}, s.session_id.slice(0, 8))) : null,
    ),
    h(
      'td',
      { 'data-role': 'schedule-state' },
      s.paused ? badge('paused') : h('span', { class: 'badge st-finished' }, 'active'),
      s.note ? h('div', { class: 'muted' }, s.note) : null,
    ),
    h(
      'td',
      { 'data-role': 'next-runs' },
      (s.next_action_times ?? []).slice(0, 3).map((t) => h('div', {}, at(t))),
    ),
    h('td', { 'data-role': 'last-runs' }, last.length ? last.map((a) => h('div', {}, at(a.taken_at))) : h('span', { class: 'muted' }, 'none yet')),
    h('td', {}, `${s.actions_taken ?? 0} taken, ${s.actions_skipped_overlap ?? 0} skipped (overlap)`),
    h('td', {}, toggle),
  );
}

export async function schedulesPage(main, agentId) {
  const select = h('select', { name: 'agent_id', 'data-role': 'schedules-agent', 'aria-label': 'Canvas' }, h('option', { value: '' }, '— choose a canvas —'));
  select.addEventListener('change', () => (location.hash = select.value ? `#/schedules/${encodeURIComponent(select.value)}` : '#/schedules'));
  const reloadButton = h('button', { type: 'button', 'data-role': 'reload-schedules' }, 'Reload');
  const body = h('tbody');
  const error = h('div', { class: 'error-box', hidden: true });

  async function load() {
    if (!agentId) return replace(body, h('tr', {}, h('td', { colspan: 8, class: 'muted' }, 'Choose a canvas to see its schedules.')));
    try {
      const { items } = await get(`/api/v1/agents/${encodeURIComponent(agentId)}/schedules`);
      error.hidden = true;
      replace(
        body,
        ...(items.length
          ? items.map((s) => row(agentId, s, load))
          : [h('tr', {}, h('td', { colspan: 8, class: 'muted', 'data-role': 'no-schedules' }, 'No schedules.'))]),
      );
    } catch (err) {
      error.hidden = false;
      error.textContent = err.message;
    }
  }
  reloadButton.addEventListener('click', () => void load());
  replace(
    main,
    h('div', { class: 'page-head' }, h('h2', {}, 'Schedules')),
    h('div', { class: 'filters' }, select, reloadButton),
    error,
    h(
      'table',
      { class: 'runs schedules', 'data-role': 'schedules' },
      h('thead', {}, h('tr', {}, ...['Schedule', 'When', 'Asks', 'State', 'Next runs', 'Last runs', 'Actions', 'Pause'].map((t) => h('th', {}, t)))),
      body,
    ),
  );
  // The page is drawn before the reads: one finishing after the user navigated away writes only here.
  const agents = await get('/api/v1/agents?page_size=100&orderby=update_time');
  for (const c of agents.canvas ?? []) select.append(h('option', { value: c.id }, c.title));
  select.value = agentId ?? '';
  await load();
}
