/** Sessions (RAGFlow's conversations with an agent) as the store keeps them. */
import type { ListOptions } from './dbContract';
import type { SessionState } from '../../core/engine/state';

/** A chat message as RAGFlow sessions keep them. */
export interface SessionMessage {
  role: 'user' | 'assistant';
  content: string;
  id?: string;
  created_at?: number;
  reference?: unknown;
  [key: string]: unknown;
}

export interface SessionRecord {
  id: string;
  tenant_id: string;
  agent_id: string;
  name: string;
  user_id: string;
  source: string;
  messages: SessionMessage[];
  /** Conversation state carried to the next run. */
  state: SessionState;
  /** The run currently running or paused in this session, if any. */
  active_run_id: string | null;
  create_time: number;
  update_time: number;
  create_date: string;
  update_date: string;
}

export interface SessionListFilter extends ListOptions {
  id?: string;
  userId?: string;
}
