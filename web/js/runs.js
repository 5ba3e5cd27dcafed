/**
 * The tenant's runs, newest first: filters (canvas, status, session), paging, and each run's
 * duration, token usage and who started it. The list reloads when the runs stream
 * (runChanges.js) says a run started, changed status or ended — anywhere, through any API
 * process — and never on a timer while the stream is live. Only while the stream keeps failing
 * does it reload every FALLBACK_MS.
 */
import { get } from './api.js';
import { badge, duration, h, replace, tokens, when } from './dom.js';
import { followRunChanges } from './runChanges.js';

const STATUSES = ['running', 'paused', 'finished', 'failed', 'canceled'];
const PAGE_SIZE = 20;
/** The list's reload period while the runs stream cannot connect. */
const FALLBACK_MS = 30_000;
/** Changes arriving together cause one reload. */
const COALESCE_MS = 150;

function startedBy(r) {
  const sb = r.started_by;
  if (sb?.kind === 'run') return h('a', { href: `#/runs/${encodeURIComponent(sb.id)}` }, 'run ', h('code', {}, sb.id.slice(0, 8)));
  if (sb?.kind === 'user') return sb.id;
  if (sb?.kind === 'schedule') return h('span', {}, 'schedule ', h('code', {}, sb.id.slice(0, 8)));
  if (sb?.kind === 'document') return h('span', {}, 'parsing ', h('code', {}, sb.id.slice(0, 8)));
  // A session turn whose session (and with it the user's name) was deleted since.
  if (sb?.kind === 'session') return h('span', { 'data-role': 'deleted-session' }, 'deleted session ', h('code', {}, sb.id.slice(0, 8)));
  return 'webhook';
}

/** The canvas's title, or — once the canvas is deleted — that fact and its id. */
function canvasName(r) {
  if (r.canvas_title !== null && r.canvas_title !== undefined) return r.canvas_title;
  return h('span', { class: 'muted', 'data-role': 'deleted-canvas' }, 'deleted canvas ', h('code', {}, r.canvas_id.slice(0, 12)));
}

function sessionCell(r) {
  if (!r.session_id) return '—';
  // The conversation (its turns as a chat); a deleted session's runs are still listed by the filter.
  const link = r.session_deleted
    ? h(
        'a',
        { href: `#/runs?session_id=${encodeURIComponent(r.session_id)}`, title: `runs of session ${r.session_id}` },
        h('code', {}, r.session_id.slice(0, 8)),
      )
    : h(
        'a',
        { href: `#/sessions/${encodeURIComponent(r.canvas_id)}/${encodeURIComponent(r.session_id)}`, 'data-role': 'session-link', title: 'The conversation' },
        h('code', {}, r.session_id.slice(0, 8)),
      );
  return r.session_deleted ? h('span', {}, 'deleted ', link) : link;
}

const COLUMNS = ['Started', 'Run', 'Canvas', 'Status', 'Duration', 'Tokens', 'Started by', 'Session'];

/** A cell that names its column: at narrow widths the table shows as cards, each cell under its name. */
const cell = (i, ...children) => h('td', { 'data-label': COLUMNS[i] }, ...children);

function row(r) {
  return h(
    'tr',
    { 'data-run': r.id, 'data-status': r.status },
    cell(0, when(r.create_time)),
    cell(1, h('a', { href: `#/runs/${encodeURIComponent(r.id)}`, title: `run ${r.id}` }, h('code', {}, r.id.slice(0, 12)))),
    cell(2, canvasName(r)),
    cell(3, badge(r.status)),
    cell(4, duration(r.duration_ms)),
    cell(5, tokens(r.usage)),
    cell(6, startedBy(r)),
    cell(7, sessionCell(r)),
  );
}

export async function runsPage(main, params) {
  const filter = {
    canvas_id: params.get('canvas_id') ?? '',
    status: params.get('status') ?? '',
    session_id: params.get('session_id') ?? '',
    page: Math.max(1, Number(params.get('page') ?? 1) || 1),
  };
  const canvases = await get('/api/v1/agents?page_size=100&orderby=update_time').catch(() => ({ canvas: [] }));
  const go = (patch) => {
    const next = { ...filter, ...patch };
    const q = new URLSearchParams(Object.entries(next).filter(([k, v]) => v !== '' && !(k === 'page' && v === 1)));
    location.hash = `#/runs${q.toString() ? `?${q}` : ''}`;
  };

  const canvasSelect = h('select', { name: 'canvas_id', 'data-filter': 'canvas', 'aria-label': 'Canvas' }, h('option', { value: '' }, 'all canvases'));
  for (const c of canvases.canvas ?? []) canvasSelect.append(h('option', { value: c.id }, c.title));
  canvasSelect.value = filter.canvas_id;
  const statusSelect = h(
    'select',
    { name: 'status', 'data-filter': 'status', 'aria-label': 'Status' },
    h('option', { value: '' }, 'any status'),
    ...STATUSES.map((st) => h('option', { value: st }, st)),
  );
  statusSelect.value = filter.status;
  const sessionInput = h('input', {
    name: 'session_id',
    placeholder: 'session id',
    value: filter.session_id,
    'data-filter': 'session',
    'aria-label': 'Session id',
  });
  const filters = h(
    'form',
    { class: 'filters' },
    canvasSelect,
    statusSelect,
    sessionInput,
    h('button', { type: 'submit' }, 'Filter'),
    h('a', { href: '#/runs', class: 'button' }, 'Clear'),
  );
  filters.addEventListener('submit', (ev) => {
    ev.preventDefault();
    go({ canvas_id: canvasSelect.value, status: statusSelect.value, session_id: sessionInput.value.trim(), page: 1 });
  });
  canvasSelect.addEventListener('change', () => go({ canvas_id: canvasSelect.value, page: 1 }));
  statusSelect.addEventListener('change', () => go({ status: statusSelect.value, page: 1 }));

  const body = h('tbody');
  const live = h('span', { class: 'muted', 'data-role': 'list-live' }, 'connecting…');
  const pager = h('div', { class: 'pager' });
  const error = h('div', { class: 'error-box', hidden: true });
  replace(
    main,
    h('div', { class: 'page-head' }, h('h2', {}, 'Runs ', live), h('a', { href: '#/start', class: 'button primary', 'data-role': 'start-run' }, 'Start a run')),
    filters,
    error,
    h(
      'table',
      { class: 'runs' },
      h('caption', { class: 'visually-hidden' }, 'Runs, newest first'),
      h('thead', {}, h('tr', {}, ...COLUMNS.map((t) => h('th', { scope: 'col' }, t)))),
      body,
    ),
    pager,
  );

  // A first visit (no runs at all): the way to a first run, the bundled examples among the canvases.
  const noRuns = () =>
    filter.canvas_id || filter.status || filter.session_id || !(canvases.canvas ?? []).length
      ? 'No runs match.'
      : h(
          'span',
          {},
          'No runs yet. Start one: ',
          ...(canvases.canvas ?? []).slice(0, 6).flatMap((c, i) => [i ? ' · ' : '', h('a', { href: `#/start/${encodeURIComponent(c.id)}` }, c.title)]),
        );

  async function load() {
    const q = new URLSearchParams({ page: String(filter.page), page_size: String(PAGE_SIZE) });
    for (const k of ['canvas_id', 'status', 'session_id']) if (filter[k]) q.set(k, filter[k]);
    try {
      const res = await get(`/api/v1/runs?${q}`);
      error.hidden = true;
      replace(body, ...(res.items.length ? res.items.map(row) : [h('tr', {}, h('td', { colspan: 8, class: 'muted', 'data-role': 'no-runs' }, noRuns()))]));
      const pages = Math.max(1, Math.ceil(res.total / PAGE_SIZE));
      const prev = h('button', { type: 'button', disabled: filter.page <= 1 }, '← Newer');
      const next = h('button', { type: 'button', disabled: filter.page >= pages }, 'Older →');
      prev.addEventListener('click', () => go({ page: filter.page - 1 }));
      next.addEventListener('click', () => go({ page: filter.page + 1 }));
      replace(pager, prev, h('span', { 'data-role': 'total' }, `Page ${filter.page} of ${pages} · ${res.total} runs`), next);
    } catch (err) {
      error.hidden = false;
      error.textContent = err.message;
    }
  }
  await load();

  const stop = new AbortController();
  let fallback = null;
  let pending = null;
  const reloadSoon = () => {
    pending ??= setTimeout(() => {
      pending = null;
      void load();
    }, COALESCE_MS);
  };
  void followRunChanges({
    signal: stop.signal,
    // A change to a run another canvas's or session's list shows does not touch this one.
    onChange: (c) => {
      if ((filter.canvas_id && c.canvas_id !== filter.canvas_id) || (filter.session_id && c.session_id !== filter.session_id)) return;
      reloadSoon();
    },
    onState: (state) => {
      live.textContent = state === 'live' ? '· live' : state === 'failing' ? '· stream down, reloading every 30 s' : '· reconnecting…';
      live.dataset.state = state;
      if (state === 'live') {
        clearInterval(fallback);
        fallback = null;
        // What changed between the first load and the stream's start (or while it was down).
        reloadSoon();
      } else if (state === 'failing') fallback ??= setInterval(load, FALLBACK_MS);
    },
  });
  return () => {
    stop.abort();
    clearInterval(fallback);
    clearTimeout(pending);
  };
}
