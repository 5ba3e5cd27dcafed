/**
 * A session read as a conversation (the run view's session page): its turns in order, each the
 * user's message (with the files sent), the answer, the citations and attachments its Messages
 * showed, and the run that answered it. The session row keeps the messages (user and assistant
 * share the turn's message id); the runs of the session and their `message_end` events give the
 * rest. A turn still running has no answer yet; a failed or canceled one has its run's status.
 */
import { isEvent } from '../../src/core/engine/runEvents';
import { AppError } from '../../src/errors';
import type { SessionMessage, Store } from '../../src/io/store/contract';
import { listRuns, type RunListItem } from './runList';

/** The most turns a page shows (the newest); a longer session is listed in its runs. */
export const MAX_TURNS = 200;

export interface ConversationTurn {
  message_id: string | null;
  question: { content: string; files: unknown[]; created_at: number | null } | null;
  answer: { content: string; created_at: number | null } | null;
  /** RAGFlow's reference (chunks, doc_aggs) of each Message that cited something. */
  references: unknown[];
  attachments: unknown[];
  downloads: unknown[];
  run: { task_id: string; status: string; error: string | null; create_time: number } | null;
}

export interface Conversation {
  id: string;
  agent_id: string;
  canvas_title: string | null;
  name: string;
  user_id: string;
  active_run_id: string | null;
  /** Assistant messages before the first question (a prologue). */
  greeting: string[];
  turns: ConversationTurn[];
  /** Turns older than the MAX_TURNS shown. */
  omitted: number;
}

const secondsOf = (m: SessionMessage | undefined) => (typeof m?.created_at === 'number' ? m.created_at : null);

export async function readConversation(store: Store, tenantId: string, agentId: string, sessionId: string): Promise<Conversation> {
  const canvas = await store.canvases.get(tenantId, agentId);
  const session = await store.sessions.get(tenantId, agentId, sessionId);
  if (!session) throw new AppError('NOT_FOUND', `Session ${sessionId} of agent ${agentId} not found`);
  const { items: runs } = await listRuns(store, tenantId, { sessionId, page: 1, pageSize: MAX_TURNS });
  const runByMessage = new Map<string, RunListItem>();
  for (const run of runs) {
    const last = await store.runs.lastEvent(run.id);
    if (last?.message_id) runByMessage.set(last.message_id, run);
  }

  const greeting: string[] = [];
  const turns: ConversationTurn[] = [];
  const byMessage = new Map<string, ConversationTurn>();
  for (const m of session.messages) {
    const id = typeof m.id === 'string' ? m.id : null;
    if (m.role === 'user') {
      const turn: ConversationTurn = {
        message_id: id,
        question: { content: m.content, files: Array.isArray(m.files) ? m.files : [], created_at: secondsOf(m) },
        answer: null,
        references: [],
        attachments: [],
        downloads: [],
        run: null,
      };
      turns.push(turn);
      if (id) byMessage.set(id, turn);
    } else if (id && byMessage.has(id)) {
      byMessage.get(id)!.answer = { content: m.content, created_at: secondsOf(m) };
    } else if (turns.length === 0) {
      greeting.push(m.content);
    } else {
      turns.push({
        message_id: id,
        question: null,
        answer: { content: m.content, created_at: secondsOf(m) },
        references: [],
        attachments: [],
        downloads: [],
        run: null,
      });
    }
  }

  const shown = turns.slice(-MAX_TURNS);
  for (const turn of shown) {
    const run = turn.message_id ? runByMessage.get(turn.message_id) : undefined;
    if (!run || !turn.message_id) continue;
    turn.run = { task_id: run.id, status: run.status, error: run.error, create_time: run.create_time };
    for (const e of await store.events.listByMessage(tenantId, agentId, turn.message_id, 'message_end')) {
      if (!isEvent(e, 'message_end')) continue;
      const reference = e.data.reference;
      if (reference && Object.keys(reference.chunks).length > 0) turn.references.push(reference);
      if (e.data.attachment) turn.attachments.push(e.data.attachment);
      turn.downloads.push(...(e.data.downloads ?? []));
    }
  }
  return {
    id: session.id,
    agent_id: agentId,
    canvas_title: canvas?.title ?? null,
    name: session.name,
    user_id: session.user_id,
    active_run_id: session.active_run_id,
    greeting,
    turns: shown,
    omitted: turns.length - shown.length,
  };
}
