/**
 * The run as a Gantt (issue 36): one bar per node execution, on one time axis from the run's
 * start, with what the time went to drawn inside it — waiting in the task queue, waiting for
 * provider capacity, each model call attempt (failed ones marked), the wait before a retry, and the
 * time a form waited for a person — and the same figures as a table. From
 * `GET /api/v1/runs/{id}/timeline`. SVG attributes only: the page's CSP allows no inline style.
 */
import { get } from './api.js';
import { duration, h, replace, s } from './dom.js';

const WIDTH = 900;
const LABEL = 180;
const ROW = 24;
const AXIS = 22;

export const SEGMENT_LABEL = {
  queue: 'in the task queue',
  capacity: 'waiting for provider capacity',
  attempt: 'model call',
  retry_wait: 'waiting to retry',
  person: 'waiting for a person',
};

const sumOf = (x, kind) => x.segments.filter((g) => g.kind === kind).reduce((n, g) => n + (g.end - g.start), 0);

function ticks(span) {
  const steps = [100, 250, 500, 1000, 2000, 5000, 10_000, 30_000, 60_000, 300_000, 600_000, 1_800_000, 3_600_000];
  const step = steps.find((st) => span / st <= 8) ?? span / 8;
  const out = [];
  for (let t = 0; t <= span; t += step) out.push(t);
  return out;
}

function gantt(t) {
  const start = Math.min(t.start, ...t.executions.map((x) => x.start));
  const span = Math.max(1, t.end - start);
  const x = (ms) => LABEL + ((ms - start) / span) * (WIDTH - LABEL - 8);
  const height = AXIS + t.executions.length * ROW + 4;
  const svg = s('svg', {
    class: 'timeline',
    viewBox: `0 0 ${WIDTH} ${height}`,
    role: 'img',
    'aria-label': `Timeline of ${t.executions.length} node executions`,
  });
  for (const tick of ticks(span))
    svg.append(
      s('line', { class: 'tick', x1: x(start + tick), x2: x(start + tick), y1: AXIS - 4, y2: height }),
      s('text', { class: 'tick-label', x: x(start + tick) + 2, y: 12 }, duration(tick)),
    );
  t.executions.forEach((e, row) => {
    const y = AXIS + row * ROW;
    const end = e.end ?? t.end;
    const label = `${e.name && e.name !== e.node_id ? `${e.name} ` : ''}${e.node_id}${e.index > 0 ? ` #${e.index + 1}` : ''}`;
    const g = s(
      'g',
      { class: `exec-bar st-${e.status}`, 'data-node': e.node_id, 'data-exec': e.index, 'data-status': e.status },
      s('text', { class: 'bar-label', x: 4, y: y + 15 }, label.length > 26 ? `${label.slice(0, 25)}…` : label),
      s(
        'rect',
        { class: 'bar', x: x(e.start), y: y + 3, width: Math.max(2, x(end) - x(e.start)), height: ROW - 6, rx: 3 },
        s('title', {}, `${label}: ${duration(end - e.start)} (${e.status})`),
      ),
      ...e.segments.map((seg) =>
        s(
          'rect',
          {
            class: `seg seg-${seg.kind}${seg.outcome === 'failed' ? ' seg-failed' : ''}`,
            'data-segment': seg.kind,
            x: x(seg.start),
            y: y + 7,
            width: Math.max(1.5, x(seg.end) - x(seg.start)),
            height: ROW - 14,
          },
          s(
            'title',
            {},
            `${SEGMENT_LABEL[seg.kind]}${seg.attempt ? ` (attempt ${seg.attempt})` : ''}: ${duration(seg.end - seg.start)}${seg.error ? ` · ${seg.error}` : ''}`,
          ),
        ),
      ),
    );
    svg.append(g);
  });
  return svg;
}

function table(t) {
  const start = t.start;
  const cell = (ms) => (ms > 0 ? duration(ms) : '—');
  return h(
    'table',
    { class: 'timeline-table' },
    h(
      'thead',
      {},
      h('tr', {}, ...['Node', 'Starts at', 'Took', 'Queue', 'Provider capacity', 'Model calls', 'Waiting for a person'].map((c) => h('th', {}, c))),
    ),
    h(
      'tbody',
      {},
      ...t.executions.map((e) =>
        h(
          'tr',
          { 'data-node': e.node_id, 'data-exec': e.index },
          h('td', {}, e.node_id, e.index > 0 ? ` #${e.index + 1}` : ''),
          h('td', {}, `+${duration(e.start - start)}`),
          h('td', {}, e.end === null ? `${duration(t.end - e.start)}…` : duration(e.end - e.start)),
          h('td', {}, cell(sumOf(e, 'queue'))),
          h('td', {}, cell(sumOf(e, 'capacity'))),
          h('td', {}, String(e.segments.filter((g) => g.kind === 'attempt').length || '—')),
          h('td', { 'data-role': 'person-wait' }, cell(sumOf(e, 'person'))),
        ),
      ),
    ),
  );
}

function legend() {
  return h('div', { class: 'legend' }, ...Object.entries(SEGMENT_LABEL).map(([kind, label]) => h('span', { class: `chip seg-chip seg-${kind}` }, label)));
}

/** The run page's "Timeline" section: drawn when opened, redrawn by `refresh()` while open. */
export function timelineSection(runId) {
  const box = h('div', { class: 'timeline-box', 'data-role': 'timeline-box' });
  const el = h('details', { class: 'timeline-section', 'data-role': 'timeline' }, h('summary', {}, 'Timeline'), box);
  let busy = false;
  const refresh = async () => {
    if (!el.open || busy) return;
    busy = true;
    try {
      const t = await get(`/api/v1/runs/${encodeURIComponent(runId)}/timeline`);
      replace(box, t.executions.length ? [gantt(t), legend(), table(t)] : h('p', { class: 'muted' }, 'No node has started yet.'));
    } catch (err) {
      replace(box, h('div', { class: 'error-box' }, `Timeline: ${err.message}`));
    } finally {
      busy = false;
    }
  };
  el.addEventListener('toggle', refresh);
  return { el, refresh };
}
