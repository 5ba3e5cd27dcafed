/**
 * Time travel in the run view (docs/API.md, "Time travel"): "Fork from here" on a node (its params
 * and inputs edited as JSON, the API's errors shown by JSON path next to the field), "Rerun from
 * failed node", "Replay with model…", and on a fork's or replay's own page where it came from,
 * what it saved and, for a replay, the side-by-side diff against its source.
 */
import { ApiError, post } from './api.js';
import { h, replace } from './dom.js';

const runLink = (id, role) => h('a', { href: `#/runs/${encodeURIComponent(id)}`, 'data-role': role }, h('code', {}, id.slice(0, 12)));

/** Starts a time travel request and opens the new run; on a refusal shows its problems by JSON path. */
async function travel(button, path, body, show) {
  button.disabled = true;
  try {
    const res = await post(path, body);
    location.hash = `#/runs/${encodeURIComponent(res.task_id)}`;
  } catch (err) {
    button.disabled = false;
    show(err instanceof ApiError && err.problems.length > 0 ? err.problems : [{ path: '', message: err.message }]);
  }
}

/** A JSON textarea with its label and an error line; `read()` is its parsed value or throws a problem at `path`. */
function jsonField(name, label, value, path) {
  const id = `travel-${name}`;
  const input = h('textarea', { id, name, rows: 6, spellcheck: 'false', 'data-field': name, 'aria-describedby': `${id}-error` });
  input.value = value;
  const error = h('div', { class: 'field-error', id: `${id}-error`, role: 'alert', 'data-error-for': name });
  return {
    el: h('div', { class: 'field' }, h('label', { for: id, class: 'field-name' }, label), input, error),
    path,
    read() {
      if (!input.value.trim()) return undefined;
      let v;
      try {
        v = JSON.parse(input.value);
      } catch (e) {
        throw { path, message: `is not JSON: ${e.message}` };
      }
      if (v === null || typeof v !== 'object' || Array.isArray(v)) throw { path, message: 'must be a JSON object' };
      return v;
    },
    show(messages) {
      error.textContent = messages.join('; ');
      if (messages.length) input.setAttribute('aria-invalid', 'true');
      else input.removeAttribute('aria-invalid');
    },
  };
}

/** Puts each problem next to the field whose path it starts with; the rest in `general`. */
function showProblems(fields, general, problems) {
  const left = [];
  const by = new Map(fields.map((f) => [f, []]));
  for (const p of problems) {
    const path = String(p.path ?? '').replace(/^\$\.body\./, '$.');
    const f = fields.find((x) => path.startsWith(x.path));
    if (f) by.get(f).push(`${path} ${p.message}`);
    else left.push(`${path} ${p.message ?? ''}`.trim());
  }
  for (const [f, messages] of by) f.show(messages);
  general.hidden = left.length === 0;
  general.textContent = left.join('; ');
}

/**
 * "Fork from here" for node `id` of run `runId`: its params (from the canvas the run ran) and
 * optional inputs as JSON; inside an Iteration/Loop (`loopId`), which item restarts.
 */
export function forkForm(runId, id, params, loopId = null) {
  const original = params ?? {};
  const paramsField = jsonField('fork-params', `Params of ${id} (JSON, merged over the saved ones)`, JSON.stringify(original, null, 2), '$.params');
  const inputsField = jsonField('fork-inputs', 'Inputs (optional JSON: {"<component>@<output>": value, "sys.query": …})', '', '$.inputs');
  const itemInput = loopId ? h('input', { id: 'travel-fork-item', type: 'number', min: '0', step: '1', value: '0', 'data-field': 'fork-item' }) : null;
  const itemField = itemInput
    ? h(
        'div',
        { class: 'field' },
        h('label', { for: 'travel-fork-item', class: 'field-name' }, `Item of ${loopId} to restart (0 = first; earlier items are reused)`),
        itemInput,
      )
    : null;
  const general = h('div', { class: 'error-box', hidden: true, 'data-role': 'fork-error' });
  const submit = h('button', { type: 'submit', class: 'primary', 'data-role': 'fork-submit' }, 'Fork from here');
  const form = h(
    'form',
    { class: 'travel fork', 'data-role': 'fork-form', novalidate: true },
    h('p', { class: 'muted' }, 'A new run: the nodes before this one are reused from this run, this one and what follows run again.'),
    itemField,
    paramsField.el,
    inputsField.el,
    general,
    submit,
  );
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const fields = [paramsField, inputsField];
    let edited;
    let inputs;
    try {
      edited = paramsField.read() ?? {};
      inputs = inputsField.read();
    } catch (problem) {
      return showProblems(fields, general, [problem]);
    }
    showProblems(fields, general, []);
    // Only the changed keys are sent: the API merges them over the component's params.
    const changed = Object.fromEntries(Object.entries(edited).filter(([k, v]) => JSON.stringify(v) !== JSON.stringify(original[k])));
    const item = itemInput && itemInput.value !== '' ? Number(itemInput.value) : undefined;
    const body = {
      from: id,
      ...(item !== undefined ? { item } : {}),
      ...(Object.keys(changed).length ? { params: { [id]: changed } } : {}),
      ...(inputs ? { inputs } : {}),
    };
    void travel(submit, `/api/v1/runs/${encodeURIComponent(runId)}/fork`, body, (problems) => showProblems(fields, general, problems));
  });
  return h('details', { class: 'travel-box', 'data-role': 'fork' }, h('summary', {}, 'Fork from here…'), form);
}

/** "Rerun from failed node": one button, the failed run again from its failed component on the canvas as saved now. */
export function rerunButton(runId, errorBox) {
  const button = h('button', { type: 'button', class: 'primary', 'data-role': 'rerun' }, 'Rerun from failed node');
  button.addEventListener('click', () =>
    travel(button, `/api/v1/runs/${encodeURIComponent(runId)}/rerun`, {}, (problems) =>
      errorBox.append(h('div', { class: 'error-box' }, problems.map((p) => `${p.path ?? ''} ${p.message}`.trim()).join('; '))),
    ),
  );
  return button;
}

/** Every model id a canvas's components name (an Agent's tools too). */
export function modelsOf(dsl) {
  const found = new Set();
  const walk = (v) => {
    if (Array.isArray(v)) return v.forEach(walk);
    if (v === null || typeof v !== 'object') return;
    for (const [k, x] of Object.entries(v)) {
      if (k === 'llm_id' && typeof x === 'string' && x) found.add(x);
      else walk(x);
    }
  };
  walk(dsl?.components);
  return [...found].sort();
}

/** "Replay with model…": a model id for each model the run used (blank keeps it), tools frozen by default. */
export function replayForm(runId, dsl) {
  const models = modelsOf(dsl);
  if (models.length === 0) return null;
  const rows = models.map((m, i) => {
    const input = h('input', { id: `replay-model-${i}`, name: m, placeholder: m, 'data-replay-model': m });
    return { m, input, el: h('div', { class: 'field' }, h('label', { for: `replay-model-${i}`, class: 'field-name' }, `Replace ${m} with`), input) };
  });
  const tools = h(
    'select',
    { id: 'replay-tools', name: 'tools', 'data-role': 'replay-tools' },
    h('option', { value: 'frozen' }, 'frozen: answered from this run, nothing is called'),
    h('option', { value: 'live' }, 'live: called again'),
  );
  const modelsField = { path: '$.model_map', show: (messages) => (modelError.textContent = messages.join('; ')) };
  const modelError = h('div', { class: 'field-error', role: 'alert', 'data-error-for': 'model_map' });
  const general = h('div', { class: 'error-box', hidden: true, 'data-role': 'replay-error' });
  const submit = h('button', { type: 'submit', class: 'primary', 'data-role': 'replay-submit' }, 'Replay');
  const form = h(
    'form',
    { class: 'travel replay', 'data-role': 'replay-form', novalidate: true },
    ...rows.map((r) => r.el),
    modelError,
    h('div', { class: 'field' }, h('label', { for: 'replay-tools', class: 'field-name' }, 'Tools'), tools),
    general,
    submit,
  );
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const model_map = Object.fromEntries(rows.filter((r) => r.input.value.trim()).map((r) => [r.m, r.input.value.trim()]));
    if (Object.keys(model_map).length === 0) return showProblems([modelsField], general, [{ path: '$.model_map', message: 'name a model to replace' }]);
    showProblems([modelsField], general, []);
    void travel(submit, `/api/v1/runs/${encodeURIComponent(runId)}/replay`, { model_map, tools: tools.value }, (problems) =>
      showProblems([modelsField], general, problems),
    );
  });
  return h('details', { class: 'travel-box', 'data-role': 'replay' }, h('summary', {}, 'Replay with model…'), form);
}

function savingsLine(savings) {
  if (!savings) return null;
  const tokens = savings.tokens_saved?.total_tokens ?? 0;
  return h(
    'span',
    { 'data-role': 'savings' },
    `Saved ${savings.calls_avoided ?? 0} calls (${savings.model_calls_avoided ?? 0} model, ${savings.tool_calls_avoided ?? 0} tool), ${tokens} tokens`,
  );
}

/** Where a fork/rerun/replay came from and what it saved; null for a run that came from no other. */
export function travelFacts(run) {
  if (run.forked_from) {
    const f = run.forked_from;
    return h(
      'div',
      { class: 'travel-facts', 'data-role': 'forked-from' },
      h(
        'span',
        {},
        `${f.kind === 'rerun' ? 'Rerun' : 'Fork'} of `,
        runLink(f.task_id, 'source-run'),
        ' from ',
        h('code', {}, f.component_id),
        typeof f.item === 'number' ? ` (item ${f.item})` : '',
      ),
      savingsLine(run.savings),
    );
  }
  if (run.replay_of)
    return h(
      'div',
      { class: 'travel-facts', 'data-role': 'replay-of' },
      h('span', {}, 'Replay of ', runLink(run.replay_of, 'source-run')),
      savingsLine(run.savings),
    );
  return null;
}

/** The "reused from <run>" mark of a node the run did not execute. */
export function reusedMark(run, id) {
  if (!run.reused_from?.components?.includes(id)) return null;
  return h('p', { class: 'reused', 'data-role': 'reused-from' }, 'Reused from ', runLink(run.reused_from.task_id, 'reused-link'), ': not run again.');
}

const answerCell = (a) => h('td', {}, a.answer === null ? h('span', { class: 'muted' }, 'no answer') : h('div', { class: 'answer' }, a.answer));
const toolsCell = (a) => h('td', {}, a.tools.length ? a.tools.join(', ') : h('span', { class: 'muted' }, 'none'));

/** A replay's diff against its source, side by side per component, changed rows marked. */
export function diffView(run) {
  const d = run.diff;
  if (!d) return run.replay_of ? h('p', { class: 'muted', 'data-role': 'diff-pending' }, 'The diff shows once the replay ended.') : null;
  const table = h(
    'table',
    { class: 'diff', 'data-role': 'diff' },
    h('caption', {}, `${d.answers_changed} answers changed, ${d.tool_choices_changed} tool choices changed`),
    h(
      'thead',
      {},
      h('tr', {}, ...['Component', 'Source answer', 'Replay answer', 'Source tools', 'Replay tools', 'Changed'].map((t) => h('th', { scope: 'col' }, t))),
    ),
    h(
      'tbody',
      {},
      ...d.nodes.map((n) => {
        const changed = [n.answer_changed ? 'answer' : null, n.tools_changed ? 'tools' : null].filter(Boolean);
        return h(
          'tr',
          { 'data-diff-node': n.component_id, 'data-changed': changed.length ? 'true' : 'false', class: changed.length ? 'changed' : null },
          h('th', { scope: 'row' }, h('code', {}, n.component_id)),
          answerCell(n.source),
          answerCell(n.replay),
          toolsCell(n.source),
          toolsCell(n.replay),
          h('td', {}, changed.length ? `changed: ${changed.join(', ')}` : 'same'),
        );
      }),
    ),
  );
  return h('section', { class: 'diff-box' }, h('h3', {}, 'Replay diff: source vs replay'), table);
}

/** Re-renders the diff box when the run's details change (the diff appears once the replay ended). */
export function renderDiff(box, run) {
  replace(box, diffView(run));
}
