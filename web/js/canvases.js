/**
 * Canvases: the tenant's list, one canvas read-only (its graph, versions, and the validator's
 * verdict with each problem's path), and importing a RAGFlow export from a file — checked by the
 * API's validator first, so problems are listed by path before anything is saved.
 */
import { ApiError, get, post } from './api.js';
import { h, pre, replace, when } from './dom.js';
import { drawGraph, layoutCanvas } from './graph.js';

function problemsList(problems) {
  return h('ul', { class: 'problems', 'data-role': 'problems' }, ...problems.map((p) => h('li', {}, h('code', {}, p.path ?? ''), ' ', p.message ?? '')));
}

async function validate(dsl) {
  try {
    const res = await post('/api/v1/canvases/validate', { dsl });
    return { ok: true, res };
  } catch (err) {
    if (err instanceof ApiError && err.status === 400)
      return { ok: false, problems: err.problems.length ? err.problems : [{ path: '', message: err.message }] };
    throw err;
  }
}

function importForm(onDone) {
  const file = h('input', { type: 'file', id: 'import-file', accept: '.json,application/json', 'data-role': 'import-file' });
  const title = h('input', { name: 'title', id: 'import-title', placeholder: 'title (default: the export’s)' });
  const out = h('div', { 'data-role': 'import-result' });
  const el = h(
    'form',
    { class: 'import' },
    h('h3', {}, 'Import a RAGFlow export'),
    h('label', { class: 'field', for: 'import-file' }, h('span', { class: 'field-name' }, 'Export file (JSON)'), file),
    h('label', { class: 'field', for: 'import-title' }, h('span', { class: 'field-name' }, 'Title'), title),
    h('button', { type: 'submit' }, 'Import'),
    out,
  );
  el.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    replace(out);
    const f = file.files?.[0];
    if (!f) return replace(out, h('div', { class: 'error-box' }, 'Choose a JSON file.'));
    let parsed;
    try {
      parsed = JSON.parse(await f.text());
    } catch (err) {
      return replace(out, h('div', { class: 'error-box' }, `Not JSON: ${err.message}`));
    }
    try {
      const checked = await validate(parsed);
      // Paths within the file (the request wraps it in `dsl`).
      const inFile = (checked.problems ?? []).map((p) => ({ ...p, path: String(p.path ?? '').replace(/^\$\.dsl/, '$') }));
      if (!checked.ok) return replace(out, h('div', { class: 'error-box' }, `${f.name} is not a valid canvas:`), problemsList(inFile));
      const name = title.value.trim() || parsed.title || checked.res.title || f.name.replace(/\.json$/, '');
      const created = await post('/api/v1/agents', { title: name, dsl: parsed, ...(parsed.description ? { description: parsed.description } : {}) });
      onDone(created.id);
    } catch (err) {
      replace(out, h('div', { class: 'error-box' }, err.message), err.problems?.length ? problemsList(err.problems) : null);
    }
  });
  return el;
}

export async function canvasesPage(main) {
  const list = await get('/api/v1/agents?page_size=100&orderby=update_time');
  const rows = (list.canvas ?? []).map((c) =>
    h(
      'tr',
      { 'data-canvas': c.id },
      h('td', { 'data-label': 'Title' }, h('a', { href: `#/canvases/${encodeURIComponent(c.id)}` }, c.title)),
      h('td', { 'data-label': 'Description' }, c.description ?? ''),
      h('td', { 'data-label': 'Updated' }, when(c.update_time)),
      h(
        'td',
        { 'data-label': 'Open' },
        h('a', { href: `#/runs?canvas_id=${encodeURIComponent(c.id)}` }, 'runs'),
        ' · ',
        h('a', { href: `#/start/${encodeURIComponent(c.id)}` }, 'start'),
        ' · ',
        h('a', { href: `#/schedules/${encodeURIComponent(c.id)}` }, 'schedules'),
      ),
    ),
  );
  replace(
    main,
    h('h2', {}, 'Canvases'),
    h(
      'table',
      { class: 'runs' },
      h('thead', {}, h('tr', {}, ...['Title', 'Description', 'Updated', 'Open'].map((t) => h('th', { scope: 'col' }, t)))),
      h('tbody', {}, ...rows),
    ),
    importForm((id) => (location.hash = `#/canvases/${encodeURIComponent(id)}`)),
  );
}

export async function canvasPage(main, id, versionId) {
  const agent = await get(`/api/v1/agents/${encodeURIComponent(id)}`);
  const versions = await get(`/api/v1/agents/${encodeURIComponent(id)}/versions`).catch(() => []);
  const version = versionId ? await get(`/api/v1/agents/${encodeURIComponent(id)}/versions/${encodeURIComponent(versionId)}`) : null;
  const dsl = version?.dsl ?? agent.dsl;
  const graphBox = h('div', { class: 'graph-box' });
  const detail = h(
    'aside',
    { class: 'side', 'aria-label': 'Node details', 'aria-live': 'polite' },
    h('p', { class: 'muted' }, 'Click a node to see its parameters.'),
  );
  const hint = () => replace(detail, h('p', { class: 'muted' }, 'Click a node (or Tab to it and press Enter) to see its parameters.'));
  const graph = drawGraph(layoutCanvas(dsl), (nodeId) => {
    const c = dsl.components?.[nodeId];
    replace(
      detail,
      h(
        'button',
        {
          type: 'button',
          class: 'close',
          'aria-label': 'Close the node’s details (Escape)',
          onclick: () => {
            hint();
            graph.paint(() => 'idle', null);
            graphBox.querySelector(`[data-node="${window.CSS.escape(nodeId)}"]`)?.focus();
          },
        },
        '×',
      ),
      h('h3', {}, h('code', {}, nodeId)),
      h('div', {}, c?.obj?.component_name ?? ''),
      h('h4', {}, 'Parameters'),
      pre(c?.obj?.params ?? {}),
      h('h4', {}, 'Downstream'),
      pre(c?.downstream ?? []),
    );
    graph.paint(() => 'idle', nodeId);
  });
  graph.paint(() => 'idle', null);
  replace(graphBox, graph.el);
  const verdict = h('div', { 'data-role': 'validation' }, 'Checking…');
  validate(dsl)
    .then((v) =>
      replace(
        verdict,
        v.ok
          ? h(
              'div',
              { class: 'ok-box' },
              `Valid: ${v.res.components.length} components${v.res.streaming.length ? `, streams into ${v.res.streaming.join(', ')}` : ''}.`,
            )
          : h('div', {}, h('div', { class: 'error-box' }, 'Problems:'), problemsList(v.problems)),
      ),
    )
    .catch((err) => replace(verdict, h('div', { class: 'error-box' }, err.message)));
  const versionList = h(
    'ul',
    { class: 'versions' },
    ...(Array.isArray(versions) ? versions : []).map((v) =>
      h(
        'li',
        {},
        h('a', { href: `#/canvases/${encodeURIComponent(id)}/versions/${encodeURIComponent(v.id)}` }, v.title || v.id),
        ` · ${when(v.update_time)}`,
        v.id === versionId ? ' (shown)' : '',
      ),
    ),
  );
  replace(
    main,
    h(
      'div',
      { class: 'page-head' },
      h('h2', {}, agent.title, version ? ` — version ${versionId.slice(0, 8)}` : ''),
      h('a', { href: `#/start/${encodeURIComponent(id)}`, class: 'button primary' }, 'Start a run'),
      h('a', { href: `#/runs?canvas_id=${encodeURIComponent(id)}`, class: 'button' }, 'Runs'),
      h('a', { href: `#/schedules/${encodeURIComponent(id)}`, class: 'button', 'data-role': 'canvas-schedules' }, 'Schedules'),
    ),
    agent.description ? h('p', {}, agent.description) : null,
    h(
      'div',
      {
        class: 'run-body',
        // Escape from the graph or the panel closes the panel (the listener goes with the page).
        onkeydown: (ev) => ev.key === 'Escape' && detail.querySelector('button.close')?.click(),
      },
      h('div', { class: 'graph-col' }, graphBox),
      detail,
    ),
    h('h3', {}, 'Validation'),
    verdict,
    h('h3', {}, 'Versions'),
    versionList,
  );
}
