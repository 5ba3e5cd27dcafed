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
  if (r.started_by?.kind === 'run')
    return h('a', { href: `#/runs/${encodeURIComponent(r.started_by.id)}` }, 'run ', h('code', {}, r.started_by.id.slice(0, 8)));
  if (r.started_by?.kind === 'user') return r.started_by.id;
  if (r.started_by?.kind === 'document') return h('span', {}, 'parsing ', h('code', {}, r.started_by.id.slice(0, 8)));
  return 'webhook';
}

function row(r) {
  return h(
    'tr',
    { 'data-run': r.id, 'data-status': r.status },
    h('td', {}, when(r.create_time)),
    h('td', {}, h('a', { href: `#/runs/${encodeURIComponent(r.id)}` }, h('code', {}, r.id.slice(0, 12)))),
    h('td', {}, r.canvas_title ?? r.canvas_id),
    h('td', {}, badge(r.status)),
    h('td', {}, duration(r.duration_ms)),
    h('td', {}, tokens(r.usage)),
    h('td', {}, startedBy(r)),
    h(
      'td',
      {},
      r.session_id
        ? h(
            'a',
            {
              href: `#/sessions/${encodeURIComponent(r.canvas_id)}/${encodeURIComponent(r.session_id)}`,
              'data-role': 'session-link',
              title: 'The conversation',
            },
            h('code', {}, r.session_id.slice(0, 8)),
          )
        : '—',
    ),
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

  const canvasSelect = h('select', { name: 'canvas_id', 'data-filter': 'canvas' }, h('option', { value: '' }, 'all canvases'));
  for (const c of canvases.canvas ?? []) canvasSelect.append(h('option', { value: c.id }, c.title));
  canvasSelect.value = filter.canvas_id;
  const statusSelect = h(
    'select',
    { name: 'status', 'data-filter': 'status' },
    h('option', { value: '' }, 'any status'),
    ...STATUSES.map((st) => h('option', { value: st }, st)),
  );
  statusSelect.value = filter.status;
  const sessionInput = h('input', { name: 'session_id', placeholder: 'session id', value: filter.session_id, 'data-filter': 'session' });
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
      h('thead', {}, h('tr', {}, ...['Started', 'Run', 'Canvas', 'Status', 'Duration', 'Tokens', 'Started by', 'Session'].map((t) => h('th', {}, t)))),
      body,
    ),
    pager,
  );

  async function load() {
    const q = new URLSearchParams({ page: String(filter.page), page_size: String(PAGE_SIZE) });
    for (const k of ['canvas_id', 'status', 'session_id']) if (filter[k]) q.set(k, filter[k]);
    try {
      const res = await get(`/api/v1/runs?${q}`);
      error.hidden = true;
      replace(
        body,
        ...(res.items.length ? res.items.map(row) : [h('tr', {}, h('td', { colspan: 8, class: 'muted', 'data-role': 'no-runs' }, 'No runs match.'))]),
      );
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
