/**
 * A session as a conversation (#/sessions/<agent>/<session>): each turn's question, answer,
 * citations and attachments, linked to the run that answered it; and a box that sends the next
 * turn into the same session over RAGFlow's completion route (`session_id`, `stream: true`), the
 * answer shown as it streams. A turn that pauses for a form is answered on its run page.
 */
import { get, onUnauthorized, session } from './api.js';
import { badge, h, replace, when } from './dom.js';
import { followRunChanges } from './runChanges.js';
import { readSse } from './sse.js';
import { EVENT } from './runEvents.js';

const runLink = (taskId, label) => h('a', { href: `#/runs/${encodeURIComponent(taskId)}`, 'data-role': 'turn-run' }, label);

function citations(turn) {
  const docs = [];
  for (const ref of turn.references) {
    for (const chunk of Object.values(ref.chunks ?? {})) {
      const name = chunk.document_name ?? chunk.doc_name ?? chunk.docnm_kwd ?? chunk.document_id ?? 'source';
      docs.push(h('li', {}, h('strong', {}, String(name)), ' ', h('span', { class: 'muted' }, String(chunk.content ?? '').slice(0, 200))));
    }
  }
  return docs.length ? h('details', { class: 'citations', 'data-role': 'citations' }, h('summary', {}, `${docs.length} citation(s)`), h('ol', {}, docs)) : null;
}

function files(label, list, role) {
  if (!list.length) return null;
  const name = (f) => f.name ?? f.file_name ?? f.filename ?? f.id ?? f.doc_id ?? 'file';
  return h(
    'div',
    { class: 'muted', 'data-role': role },
    `${label}: `,
    list.map((f, i) => [i ? ', ' : '', h('code', {}, String(name(f)))]),
  );
}

function turnView(turn) {
  const run = turn.run;
  return h(
    'li',
    { class: 'turn', 'data-role': 'turn', 'data-run': run?.task_id ?? '' },
    turn.question
      ? h('div', { class: 'bubble user', 'data-role': 'question' }, h('div', {}, turn.question.content), files('files', turn.question.files, 'question-files'))
      : null,
    h(
      'div',
      { class: 'bubble assistant' },
      h('div', { 'data-role': 'answer' }, turn.answer?.content ?? (run ? '' : '—')),
      citations(turn),
      files('attachments', [...turn.attachments, ...turn.downloads], 'attachments'),
      h(
        'div',
        { class: 'turn-meta muted' },
        run ? [runLink(run.task_id, `run ${run.task_id.slice(0, 8)}`), ' ', badge(run.status), ' ', when(run.create_time)] : 'no run recorded',
        run?.error ? h('div', { class: 'error-box' }, run.error) : null,
      ),
    ),
  );
}

/** Sends the next turn and streams its answer into `answerEl`; resolves with the run id, or throws the API's message. */
async function sendTurn(agentId, sessionId, query, answerEl, onRun) {
  const res = await fetch('/api/v1/agents/chat/completions', {
    method: 'POST',
    headers: { authorization: `Bearer ${session.key()}`, 'content-type': 'application/json' },
    body: JSON.stringify({ agent_id: agentId, session_id: sessionId, query, stream: true }),
  });
  if (res.status === 401) return onUnauthorized.handler();
  // A refusal (a busy session, bad inputs) comes back as RAGFlow's JSON envelope, not a stream.
  if (!(res.headers.get('content-type') ?? '').includes('text/event-stream')) {
    const body = await res.json().catch(() => ({}));
    if (body.code === 109) return onUnauthorized.handler();
    throw new Error(body.message ?? `HTTP ${res.status}`);
  }
  let taskId = null;
  await readSse(res, (text) => {
    if (text === '[DONE]') return;
    const e = JSON.parse(text);
    if (e.task_id && !taskId) onRun((taskId = e.task_id));
    if (e.event === EVENT.message && typeof e.data?.content === 'string') answerEl.append(e.data.content);
    if (e.event === EVENT.user_inputs) answerEl.append(h('div', { class: 'muted' }, 'The run waits for a form: answer it on its run page.'));
    if (e.event === EVENT.workflow_finished && e.data?.outputs?._ERROR) answerEl.append(h('div', { class: 'error-box' }, String(e.data.outputs._ERROR)));
  });
  return taskId;
}

export async function sessionPage(main, agentId, sessionId) {
  const list = h('ol', { class: 'chat', 'data-role': 'conversation' });
  const head = h('div', { class: 'session-head' });
  const greeting = h('div');
  const query = h('textarea', { name: 'query', rows: 2, placeholder: 'Your next message', 'data-role': 'next-message', 'aria-label': 'Next message' });
  const send = h('button', { type: 'submit', class: 'primary' }, 'Send');
  const error = h('div', { class: 'error-box', hidden: true, 'data-role': 'send-error' });
  const busy = h('div', { class: 'muted', hidden: true, 'data-role': 'session-busy' });
  const composer = h('form', { class: 'composer', 'data-role': 'composer' }, query, send, error, busy);
  let stopped = false;

  async function load() {
    const c = await get(`/api/v1/agents/${encodeURIComponent(agentId)}/sessions/${encodeURIComponent(sessionId)}/turns`);
    if (stopped) return c;
    replace(
      head,
      h('h2', {}, 'Conversation ', h('code', {}, sessionId.slice(0, 12))),
      h(
        'div',
        { class: 'facts-row' },
        h('span', {}, 'Canvas: ', h('a', { href: `#/canvases/${encodeURIComponent(agentId)}` }, c.canvas_title ?? `${agentId} (deleted)`)),
        h('span', {}, `User: ${c.user_id}`),
        h('a', { href: `#/runs?session_id=${encodeURIComponent(sessionId)}` }, 'session’s runs'),
        c.omitted ? h('span', { class: 'muted' }, `${c.omitted} older turns not shown`) : null,
      ),
    );
    replace(greeting, ...c.greeting.map((g) => h('div', { class: 'bubble assistant', 'data-role': 'greeting' }, g)));
    replace(list, ...c.turns.map(turnView));
    busy.hidden = !c.active_run_id;
    if (c.active_run_id)
      replace(busy, 'A run of this session is in progress (', runLink(c.active_run_id, c.active_run_id.slice(0, 8)), '); send once it ends.');
    return c;
  }

  composer.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const text = query.value.trim();
    if (!text) return;
    error.hidden = true;
    send.disabled = true;
    const answer = h('div', { 'data-role': 'streaming-answer' });
    const meta = h('div', { class: 'turn-meta muted' }, 'streaming…');
    list.append(h('li', { class: 'turn' }, h('div', { class: 'bubble user' }, text), h('div', { class: 'bubble assistant' }, answer, meta)));
    try {
      await sendTurn(agentId, sessionId, text, answer, (taskId) => replace(meta, runLink(taskId, `run ${taskId.slice(0, 8)}`), ' streaming…'));
      query.value = '';
    } catch (err) {
      list.lastElementChild?.remove();
      error.hidden = false;
      error.textContent = err.message;
    } finally {
      send.disabled = false;
      if (!stopped) await load().catch(() => {});
    }
  });

  // Drawn before the first read: a read finishing after the user navigated away writes only here.
  replace(
    main,
    head,
    greeting,
    list,
    composer,
    h(
      'p',
      {},
      h('a', { href: `#/start/${encodeURIComponent(agentId)}?session=${encodeURIComponent(sessionId)}` }, 'Continue with Begin inputs on the start page'),
    ),
  );
  await load();

  // A turn sent elsewhere (another tab, a client, a schedule) shows when its run starts and ends.
  const follow = new AbortController();
  void followRunChanges({
    signal: follow.signal,
    onState: () => {},
    onChange: (change) => {
      if (change.session_id === sessionId && !send.disabled) void load().catch(() => {});
    },
  });
  return () => {
    stopped = true;
    follow.abort();
  };
}
