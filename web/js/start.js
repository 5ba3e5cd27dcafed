/**
 * Starting a run of a canvas: a query and Begin's inputs (its own form), in a new session or as the
 * next turn of one of the canvas's sessions (`#/start/<canvas>?session=<id>` picks it), then the
 * run's view.
 */
import { ApiError, get, post } from './api.js';
import { h, replace } from './dom.js';
import { buildForm } from './form.js';

export async function startPage(main, canvasId, params = new URLSearchParams()) {
  const list = await get('/api/v1/agents?page_size=100&orderby=update_time');
  const select = h('select', { name: 'agent_id', id: 'start-canvas', 'data-role': 'canvas' }, h('option', { value: '' }, '— choose a canvas —'));
  for (const c of list.canvas ?? []) select.append(h('option', { value: c.id }, c.title));
  const query = h('textarea', { name: 'query', rows: 3, placeholder: 'What the run is asked (sys.query)', 'data-role': 'query' });
  const about = h('div', { class: 'muted' });
  const inputsBox = h('div');
  const sessionSelect = h('select', { name: 'session_id', 'data-role': 'session' }, h('option', { value: '' }, 'a new session'));
  const error = h('div', { class: 'error-box', hidden: true, 'data-role': 'start-error' });
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Start');
  let form = buildForm({});

  async function pick(id) {
    replace(inputsBox);
    replace(about);
    replace(sessionSelect, h('option', { value: '' }, 'a new session'));
    form = buildForm({});
    if (!id) return;
    const sessions = await get(`/api/v1/agents/${encodeURIComponent(id)}/sessions?page_size=30&dsl=false`).catch(() => []);
    for (const s of sessions ?? []) {
      const turns = (s.message ?? []).filter((m) => m.role === 'user').length;
      sessionSelect.append(h('option', { value: s.id }, `continue ${s.id.slice(0, 8)}${s.name ? ` · ${s.name}` : ''} · ${turns} turn(s)`));
    }
    const agent = await get(`/api/v1/agents/${encodeURIComponent(id)}`);
    const begin = agent.dsl?.components?.begin?.obj?.params ?? {};
    form = buildForm(begin.inputs ?? {});
    replace(about, agent.description ?? '', begin.prologue ? h('div', {}, 'Prologue: ', begin.prologue) : null);
    if (Object.keys(begin.inputs ?? {}).length > 0) replace(inputsBox, h('h3', {}, 'Begin inputs'), form.el);
  }
  select.addEventListener('change', () => void pick(select.value));

  const el = h(
    'form',
    { class: 'start', novalidate: true },
    h('label', { class: 'field' }, h('span', { class: 'field-name' }, 'Canvas'), select),
    about,
    h('label', { class: 'field' }, h('span', { class: 'field-name' }, 'Session'), sessionSelect),
    h('label', { class: 'field' }, h('span', { class: 'field-name' }, 'Query'), query),
    inputsBox,
    error,
    submit,
  );
  el.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    error.hidden = true;
    form.clear();
    if (!select.value) {
      error.hidden = false;
      error.textContent = 'Choose a canvas.';
      return;
    }
    // Blank required fields and non-numbers are refused here, before any request (the API would too).
    if (!form.check()) return;
    submit.disabled = true;
    try {
      const inputs = form.values();
      const run = await post('/api/v1/runs', {
        agent_id: select.value,
        query: query.value,
        ...(Object.keys(inputs).length ? { inputs } : {}),
        ...(sessionSelect.value ? { session_id: sessionSelect.value } : {}),
      });
      location.hash = `#/runs/${encodeURIComponent(run.task_id)}`;
    } catch (err) {
      submit.disabled = false;
      const rest = err instanceof ApiError ? form.showProblems(err.problems) : [];
      if (rest.length > 0 || !(err instanceof ApiError) || err.problems.length === 0) {
        error.hidden = false;
        error.textContent = rest.length ? rest.join('; ') : err.message;
      }
    }
  });
  replace(main, h('h2', {}, 'Start a run'), el);
  if (canvasId) {
    select.value = canvasId;
    await pick(canvasId);
    const wanted = params.get('session');
    if (wanted) {
      // A session older than the listed ones is still offered.
      if (![...sessionSelect.options].some((o) => o.value === wanted)) sessionSelect.append(h('option', { value: wanted }, `continue ${wanted.slice(0, 8)}`));
      sessionSelect.value = wanted;
    }
  }
}
