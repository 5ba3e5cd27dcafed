/**
 * One run, live: its canvas graph coloured by node state from the run's event stream (resumed
 * with Last-Event-ID after a dropped connection), a node's details on click, the reply as it
 * streams, the form a paused run waits for, and the actions — cancel, open in the Temporal UI.
 */
import { ApiError, followEvents, get, post } from './api.js';
import { badge, duration, h, pre, replace, tokens, when } from './dom.js';
import { buildForm } from './form.js';
import { drawGraph, layoutCanvas, legend } from './graph.js';
import { nodePanel } from './nodePanel.js';
import { callPanel } from './callPanel.js';
import { timelineSection } from './timeline.js';
import { applyEvent, newRunModel, shownNodeState, toolState, toolWarning } from './runState.js';
import { EVENT } from './runEvents.js';
import { uiConfig } from './config.js';
import { forkForm, renderDiff, replayForm, rerunButton, reusedMark, travelFacts } from './travel.js';
import { canceledNote, canvasFact, startedByFact } from './runFacts.js';
import { runLinks, temporalLink } from './runLinks.js';

const ENDED = new Set(['finished', 'failed', 'canceled']);

async function canvasOf(run) {
  try {
    const agent = await get(`/api/v1/agents/${encodeURIComponent(run.canvas_id)}`);
    let dsl = agent.dsl;
    if (run.canvas_version_id) {
      const version = await get(`/api/v1/agents/${encodeURIComponent(run.canvas_id)}/versions/${encodeURIComponent(run.canvas_version_id)}`).catch(() => null);
      if (version?.dsl) dsl = version.dsl;
    }
    return { title: agent.title, dsl };
  } catch {
    // The canvas was deleted (its versions with it): the run's own copy, from its workflow's start.
    const own = await get(`/api/v1/runs/${encodeURIComponent(run.id)}/dsl`).catch(() => null);
    // With no history either, the graph is drawn from the nodes the events name.
    return { title: null, dsl: own?.dsl ?? null, deleted: true };
  }
}

export async function runPage(main, runId) {
  const controller = new AbortController();
  const run = await get(`/api/v1/runs/${encodeURIComponent(runId)}`);
  const [canvas, config] = await Promise.all([canvasOf(run), uiConfig()]);
  const model = newRunModel();
  let progress = run.nodes ?? {};
  let selected = null;
  let formFor = null;
  let form = null;

  const head = h('div', { class: 'run-head' });
  const graphBox = h('div', { class: 'graph-box' });
  const side = h('aside', { class: 'side', 'aria-label': 'Node details', 'aria-live': 'polite' });
  const formBox = h('div', { class: 'form-box', 'data-role': 'pause-form' });
  const reply = h('div', { class: 'stream', 'data-role': 'reply' });
  const outcome = h('div', { class: 'outcome' });
  const diffBox = h('div', { 'data-role': 'diff-box' });
  const conn = h('span', { class: 'conn', 'data-role': 'connection' }, 'connecting…');
  const timeline = timelineSection(runId);
  replace(
    main,
    head,
    h('div', { class: 'run-body' }, h('div', { class: 'graph-col' }, graphBox, legend()), side),
    timeline.el,
    formBox,
    h('section', {}, h('h3', {}, 'Reply'), reply, outcome),
    diffBox,
  );
  renderDiff(diffBox, run);

  let graph = null;
  const drawn = () => {
    const dsl = canvas.dsl ?? {
      components: Object.fromEntries(model.started.map((id) => [id, { obj: { component_name: model.nodes[id].type }, downstream: [] }])),
    };
    graph = drawGraph(layoutCanvas(dsl), (id) => {
      selected = id;
      render();
      // Stacked (narrow screens): the panel is under the graph, brought into view.
      if (window.matchMedia('(max-width: 760px)').matches) side.scrollIntoView({ block: 'nearest' });
    });
    replace(graphBox, graph.el);
  };
  drawn();

  const cancel = h('button', { type: 'button', class: 'danger', 'data-role': 'cancel' }, 'Cancel run');
  cancel.addEventListener('click', async () => {
    cancel.disabled = true;
    try {
      await post(`/api/v1/runs/${encodeURIComponent(runId)}/cancel`);
      cancel.textContent = 'Canceling…';
    } catch (err) {
      cancel.disabled = false;
      outcome.append(h('div', { class: 'error-box' }, err.message));
    }
  });

  // A canceled run's usage counts the model call the cancel cut off (the API's, from the ledger).
  const shownUsage = () => (model.status === 'canceled' && (run.usage?.total_tokens ?? 0) > (model.usage?.total_tokens ?? 0) ? run.usage : model.usage);

  function renderHead() {
    const elapsed = model.elapsed !== null ? model.elapsed * 1000 : Date.now() - run.create_time;
    replace(
      head,
      h('h2', {}, 'Run ', h('code', {}, runId), ' ', h('span', { 'data-role': 'run-status' }, badge(model.status))),
      h(
        'div',
        { class: 'facts-row' },
        canvasFact(run, canvas.title),
        h('span', {}, `Started ${when(run.create_time)}`),
        startedByFact(run.started_by),
        h('span', {}, `Duration ${duration(elapsed)}`),
        h('span', { 'data-role': 'run-tokens' }, `Tokens ${tokens(shownUsage())}`),
        ...runLinks(run),
        conn,
      ),
      travelFacts(run),
      // Started beyond TENANT_MAX_RUNS: it starts when one of the tenant's runs ends or pauses (api/services/admission.ts).
      run.waiting_for_tenant && !ENDED.has(model.status)
        ? h('p', { class: 'notice', role: 'status', 'data-role': 'tenant-wait' }, "Waiting for its turn: the tenant's runs in flight are at TENANT_MAX_RUNS")
        : null,
      h(
        'div',
        { class: 'actions' },
        // The form may be far down (under the graph on a phone): one step to its first field.
        model.status === 'paused' && model.pending
          ? h(
              'button',
              { type: 'button', class: 'primary', 'data-role': 'go-to-form', onclick: () => formBox.querySelector('input, select, textarea')?.focus() },
              'Answer the form',
            )
          : null,
        ENDED.has(model.status) ? null : cancel,
        model.status === 'failed' ? rerunButton(runId, outcome) : null,
        temporalLink(config, run.workflow_id),
      ),
      model.status === 'finished' || model.status === 'failed' ? replayBox() : null,
    );
  }

  function renderForm() {
    if (model.status !== 'paused' || !model.pending) {
      if (formFor) replace(formBox);
      formFor = null;
      return;
    }
    if (formFor === model.pending) return;
    formFor = model.pending;
    form = buildForm(model.pending.inputs);
    const general = h('div', { class: 'error-box', hidden: true, 'data-role': 'form-error' });
    const submit = h('button', { type: 'submit', class: 'primary' }, 'Submit and resume');
    const el = h(
      'form',
      { class: 'pause', 'data-role': 'fill-up', novalidate: true },
      h('h3', {}, 'This run waits for input'),
      model.pending.tips ? h('p', { class: 'tips' }, model.pending.tips) : null,
      form.el,
      general,
      submit,
    );
    el.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      form.clear();
      general.hidden = true;
      if (!form.check()) return;
      submit.disabled = true;
      try {
        await post(`/api/v1/runs/${encodeURIComponent(runId)}/inputs`, { inputs: form.values() });
        submit.textContent = 'Submitted — resuming…';
      } catch (err) {
        submit.disabled = false;
        const rest = err instanceof ApiError ? form.showProblems(err.problems) : [];
        if (rest.length > 0 || !(err instanceof ApiError) || err.problems.length === 0) {
          general.hidden = false;
          general.textContent = rest.length > 0 ? rest.join('; ') : err.message;
        }
      }
    });
    replace(formBox, el);
  }

  // Built once: what is typed in them survives the stream's re-renders.
  let replay;
  const replayBox = () => (replay === undefined ? (replay = replayForm(runId, canvas.dsl)) : replay);
  const forks = new Map();
  const travelExtras = (id) => {
    const forkable = (ENDED.has(model.status) || model.status === 'paused') && canvas.dsl?.components?.[id];
    if (forkable && !forks.has(id)) forks.set(id, forkForm(runId, id, canvas.dsl.components[id].obj?.params, canvas.dsl.components[id].parent_id ?? null));
    return [reusedMark(run, id), forkable ? forks.get(id) : null];
  };

  let panelShows = null;
  // The node panel closes with its button or Escape; the focus goes back to the node.
  const closePanel = () => {
    const id = selected;
    if (!id) return;
    selected = null;
    render();
    graphBox.querySelector(`[data-node="${window.CSS.escape(id)}"]`)?.focus();
  };
  const closeButton = () => h('button', { type: 'button', class: 'close', 'aria-label': 'Close the node’s details (Escape)', onclick: closePanel }, '×');
  const onKey = (ev) => {
    if (ev.key === 'Escape' && selected) closePanel();
  };
  document.addEventListener('keydown', onKey);

  function render() {
    renderHead();
    // A node a fork took from its source ran in no event of this run: it shows as reused.
    const reused = (id) => run.reused_from?.components?.includes(id) && !model.nodes[id]?.execs.length;
    const stateOf = (id) => (reused(id) ? 'reused' : shownNodeState(model, id, progress));
    graph?.paint(stateOf, selected, { toolState: (t) => toolState(model, t.owner, t), warningOf: (id) => toolWarning(model, id) });
    // Redrawn only when what it shows changed: opened sections and selections survive the stream.
    const n = model.nodes[selected];
    const shown = [selected, stateOf(selected), n?.execs.length, n?.execs.filter((x) => x.finished).length, n?.text.length, n?.toolCalls.length]
      .concat([n?.children.length, n?.retries, JSON.stringify(progress[selected] ?? null), model.status])
      .join('|');
    if (shown !== panelShows) {
      panelShows = shown;
      const canvasType = canvas.dsl?.components?.[selected]?.obj?.component_name ?? null;
      if (selected)
        replace(
          side,
          closeButton(),
          nodePanel(selected, n, stateOf(selected), progress[selected], travelExtras(selected), [callPanel(runId, selected)], canvasType),
        );
      else replace(side, h('p', { class: 'muted' }, 'Click a node (or Tab to it and press Enter) to see its inputs, outputs, tool calls and timing.'));
    }
    renderForm();
    reply.textContent = model.text;
    replace(
      outcome,
      model.status === 'failed' ? h('div', { class: 'error-box', 'data-role': 'run-error' }, model.error ?? run.error ?? 'failed') : null,
      model.status === 'canceled' ? canceledNote(model.cancelReason ?? run.cancel_reason) : null,
      model.status === 'finished' && model.outputs !== null && typeof model.outputs === 'object'
        ? h('details', {}, h('summary', {}, 'Outputs'), pre(model.outputs))
        : null,
    );
  }

  let frame = 0;
  const schedule = () => {
    if (!frame) frame = requestAnimationFrame(() => ((frame = 0), render()));
  };
  let refresh = null;
  const refreshProgress = () => {
    clearTimeout(refresh);
    refresh = setTimeout(async () => {
      const fresh = await get(`/api/v1/runs/${encodeURIComponent(runId)}`).catch(() => null);
      if (!fresh) return;
      progress = fresh.nodes ?? progress;
      Object.assign(run, { usage: fresh.usage, cancel_reason: fresh.cancel_reason ?? run.cancel_reason, waiting_for_tenant: fresh.waiting_for_tenant ?? null });
      run.children = fresh.children ?? run.children;
      if (fresh.diff && !run.diff) renderDiff(diffBox, Object.assign(run, { diff: fresh.diff }));
      if (model.status === 'paused') model.pausedIds = fresh.pending_inputs?.component_ids ?? [];
      timeline.refresh();
      schedule();
    }, 300);
  };

  render();
  let lateUsage = [];
  const onEvent = (e) => {
    const before = model.started.length;
    applyEvent(model, e);
    if (!canvas.dsl && model.started.length !== before) drawn();
    if ([EVENT.user_inputs, EVENT.node_finished, EVENT.workflow_finished, EVENT.run_failed, EVENT.run_canceled].includes(e.event)) refreshProgress();
    // The call a cancel cut off is metered when its activity sees the cancel, a moment later.
    if (e.event === EVENT.run_canceled) lateUsage = [3000, 10_000].map((ms) => setTimeout(refreshProgress, ms));
    schedule();
  };
  let ticks = 0;
  const tick = setInterval(() => {
    if (ENDED.has(model.status)) return;
    renderHead();
    // Whether a running node's call waits in the task queue shows only in the run detail: asked every 2 s.
    if (++ticks % 2 === 0 && model.status === 'running') refreshProgress();
  }, 1000);
  followEvents(runId, {
    onEvent,
    onConnection: (state) => (conn.textContent = state === 'live' ? '● live' : state === 'ended' ? 'stream ended' : 'reconnecting…'),
    signal: controller.signal,
  })
    .catch((err) => outcome.append(h('div', { class: 'error-box' }, `Event stream: ${err.message}`)))
    .finally(() => clearInterval(tick));
  return () => {
    controller.abort();
    clearInterval(tick);
    clearTimeout(refresh);
    lateUsage.forEach(clearTimeout);
    document.removeEventListener('keydown', onKey);
  };
}
