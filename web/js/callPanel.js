/**
 * The model calls of one node (issue 36), opened from its node panel: for every call and each of
 * its attempts, the messages sent (system, history, user, tool results; long ones folded, files as
 * their references, secrets redacted by the server), the model and its parameters, the wait for
 * provider capacity, time to first token, duration, the provider's token counts, cost, and the
 * error of a failed attempt. A Retrieval's embedding and rerank requests (as a node or an Agent's
 * tool) show as calls of their kind: the model, the query, the documents reranked, the duration,
 * the tokens the endpoint reported and the error. From `GET /api/v1/runs/{id}/calls?node=…`.
 */
import { get } from './api.js';
import { duration, h, replace } from './dom.js';

/** A message longer than this shows folded (its first lines, the rest on a click). */
const SHOWN_CHARS = 600;

/** Which (run, node) panels are open: a node panel redrawn by the live stream opens them again. */
const opened = new Set();

function text(content, foldedChars, role) {
  const note = foldedChars ? h('div', { class: 'muted' }, `stored folded: the first ${content.length} of ${foldedChars} characters`) : null;
  if (content.length <= SHOWN_CHARS) return [h('div', { class: 'msg-text', 'data-role': role }, content), note];
  return [
    h(
      'details',
      { class: 'fold' },
      h('summary', {}, `${content.slice(0, 200)}… (${content.length} characters)`),
      h('div', { class: 'msg-text', 'data-role': role }, content),
    ),
    note,
  ];
}

function messageView(m) {
  return h(
    'div',
    { class: `msg role-${m.role}`, 'data-message-role': m.role },
    h('div', { class: 'msg-role' }, m.role, m.tool_call_id ? ` · answers ${m.tool_call_id}` : ''),
    ...text(m.content, m.folded_chars, 'message-content'),
    ...(m.tool_calls ?? []).map((c) =>
      h('div', { class: 'msg-tool-call' }, h('code', {}, c.name), ' ', c.arguments, h('span', { class: 'muted' }, ` (${c.id})`)),
    ),
  );
}

export function cost(value, priced) {
  if (!priced) return 'unpriced (MODEL_PRICES)';
  return value < 0.01 ? value.toPrecision(2) : value.toFixed(4);
}

/** What kind of call, as a reader names it. */
const KIND_LABEL = { chat: 'chat', embedding: 'embedding', rerank: 'rerank' };

/** An embedding or rerank request: what was searched for, with what, and what it cost in time and tokens. */
function serviceAttemptView(a) {
  const [query, ...documents] = a.request.messages;
  const usage = a.usage.reported ? `${a.usage.prompt_tokens} tokens` : 'not reported by the endpoint';
  const facts = [
    ['Kind', KIND_LABEL[a.kind] ?? a.kind, 'kind'],
    ['Model', a.model, 'model'],
    ...(a.kind === 'rerank' ? [['Documents', String(a.request.params.documents ?? documents.length), 'documents']] : []),
    ['Duration', duration(a.duration_ms), 'duration'],
    ['Tokens', usage, 'tokens'],
    ['Cost', 'not in the cost ledger', 'cost'],
  ];
  return h(
    'div',
    { class: `attempt${a.outcome === 'failed' ? ' has-error' : ''}`, 'data-attempt': a.attempt, 'data-kind': a.kind },
    h(
      'div',
      { class: 'round-title' },
      `Attempt ${a.attempt} · ${a.outcome === 'ok' ? 'answered' : 'failed'} · started ${new Date(a.started_at).toLocaleTimeString()}`,
    ),
    a.error ? h('div', { class: 'error-box', 'data-role': 'call-error' }, a.error) : null,
    h('dl', { class: 'facts' }, ...facts.flatMap(([k, v, role]) => [h('dt', {}, k), h('dd', { 'data-role': role }, v)])),
    query
      ? h(
          'div',
          { class: 'msg role-query', 'data-message-role': 'query' },
          h('div', { class: 'msg-role' }, 'query'),
          ...text(query.content, query.folded_chars, 'query'),
        )
      : null,
    documents.length ? h('details', { class: 'messages' }, h('summary', {}, `Documents sent (${documents.length})`), ...documents.map(messageView)) : null,
    a.response ? h('div', { class: 'response muted', 'data-role': 'response-content' }, a.response.content) : null,
  );
}

function attemptView(a) {
  if (a.kind && a.kind !== 'chat') return serviceAttemptView(a);
  const usage = a.usage.reported ? `${a.usage.prompt_tokens} in / ${a.usage.completion_tokens} out` : 'not reported by the provider';
  const facts = [
    ['Model', a.model, 'model'],
    ['Parameters', JSON.stringify(a.request.params), 'params'],
    ['Tools offered', a.request.tools.length ? a.request.tools.join(', ') : 'none', 'tools'],
    ['Waited for provider capacity', duration(a.capacity_wait_ms), 'capacity-wait'],
    ['Time to first token', a.first_token_ms === null ? '—' : duration(a.first_token_ms), 'ttft'],
    ['Duration', duration(a.duration_ms), 'duration'],
    ['Tokens', usage, 'tokens'],
    ['Cost', cost(a.cost, a.priced), 'cost'],
  ];
  return h(
    'div',
    { class: `attempt${a.outcome === 'failed' ? ' has-error' : ''}`, 'data-attempt': a.attempt },
    h(
      'div',
      { class: 'round-title' },
      `Attempt ${a.attempt} · ${a.outcome === 'ok' ? 'answered' : 'failed'} · started ${new Date(a.started_at).toLocaleTimeString()}`,
    ),
    a.error ? h('div', { class: 'error-box', 'data-role': 'call-error' }, a.error) : null,
    h('dl', { class: 'facts' }, ...facts.flatMap(([k, v, role]) => [h('dt', {}, k), h('dd', { 'data-role': role }, v)])),
    h('details', { class: 'messages', open: true }, h('summary', {}, `Messages sent (${a.request.messages.length})`), ...a.request.messages.map(messageView)),
    a.response
      ? h(
          'div',
          { class: 'response' },
          h('h5', {}, `Answer${a.response.finish_reason ? ` (finish: ${a.response.finish_reason})` : ''}`),
          ...text(a.response.content, a.response.folded_chars, 'response-content'),
          a.response.reasoning_chars ? h('div', { class: 'muted' }, `and ${a.response.reasoning_chars} characters of reasoning`) : null,
          ...a.response.tool_calls.map((c) =>
            h('div', { class: 'msg-tool-call', 'data-role': 'requested-tool' }, 'calls ', h('code', {}, c.name), ' ', c.arguments),
          ),
        )
      : null,
  );
}

function callView(c, i) {
  const last = c.attempts.at(-1);
  const tokensIn = c.attempts.reduce((n, a) => n + a.usage.prompt_tokens, 0);
  const tokensOut = c.attempts.reduce((n, a) => n + a.usage.completion_tokens, 0);
  const retries = c.attempts.length - 1;
  const chat = !last.kind || last.kind === 'chat';
  return h(
    'details',
    { class: 'model-call', 'data-call': i, 'data-kind': last.kind ?? 'chat', open: true },
    h(
      'summary',
      {},
      chat
        ? `Call ${i + 1} · ${last.model} · ${tokensIn} in / ${tokensOut} out · ${duration(last.duration_ms)}`
        : `Call ${i + 1} · ${KIND_LABEL[last.kind] ?? last.kind} · ${last.model} · ${tokensIn} tokens · ${duration(last.duration_ms)}`,
      retries ? ` · ${retries} ${retries === 1 ? 'retry' : 'retries'}` : '',
      last.outcome === 'failed' ? ' · failed' : '',
    ),
    ...c.attempts.map(attemptView),
  );
}

/** The calls last loaded per (run, node): a panel the live stream redraws shows them at once, without a "loading…" gap. */
const loadedCalls = new Map();

function show(box, calls) {
  replace(
    box,
    calls.length ? calls.map(callView) : h('p', { class: 'muted', 'data-role': 'no-calls' }, 'This node made no model, embedding or rerank call (yet).'),
  );
}

async function load(box, runId, nodeId) {
  const key = `${runId}|${nodeId}`;
  if (loadedCalls.has(key)) show(box, loadedCalls.get(key));
  else replace(box, h('p', { class: 'muted' }, 'loading…'));
  try {
    const { calls } = await get(`/api/v1/runs/${encodeURIComponent(runId)}/calls?node=${encodeURIComponent(nodeId)}`);
    // Unchanged calls are not drawn again (what a reader has unfolded stays so).
    if (JSON.stringify(calls) === JSON.stringify(loadedCalls.get(key))) return;
    loadedCalls.set(key, calls);
    show(box, calls);
  } catch (err) {
    replace(box, h('div', { class: 'error-box' }, `Model calls: ${err.message}`));
  }
}

/** The node panel's "Model calls" section: loaded when opened, again on "refresh". */
export function callPanel(runId, nodeId) {
  const key = `${runId}|${nodeId}`;
  const box = h('div', { class: 'calls', 'data-role': 'calls' });
  const refresh = h('button', { type: 'button', class: 'link', 'data-role': 'refresh-calls' }, 'refresh');
  refresh.addEventListener('click', () => load(box, runId, nodeId));
  const el = h('details', { class: 'call-panel', 'data-role': 'call-panel', open: opened.has(key) }, h('summary', {}, 'Model calls'), refresh, box);
  // Loaded once per panel drawn (a panel drawn open also gets a toggle event).
  let loaded = false;
  const open = () => {
    if (loaded) return;
    loaded = true;
    load(box, runId, nodeId);
  };
  el.addEventListener('toggle', () => {
    if (el.open) {
      opened.add(key);
      open();
    } else opened.delete(key);
  });
  if (opened.has(key)) open();
  return el;
}
