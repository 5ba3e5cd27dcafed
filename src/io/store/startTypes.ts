/** The rows a run starts with (turnStarts.ts): its row and first event, and the session turn it may claim. */
import type { SessionMessage, SessionRecord } from './sessionTypes';
import type { RunEvent } from '../../core/engine/runEvents';
import type { SessionState } from '../../core/engine/state';

export interface TurnRun {
  id: string;
  tenantId: string;
  canvasId: string;
  workflowId: string;
  canvasVersionId: string | null;
}

/** A session created by its first turn (tenant and agent are the run's). */
export interface NewSessionFields {
  id: string;
  name: string;
  userId: string;
  source: string;
  /** What the session holds before this turn (a legacy canvas's greeting), the user message excluded. */
  messages: SessionMessage[];
  state: SessionState;
}

/**
 * Each start is one statement (run row, session claim and user message, first event, readers'
 * wake-up): all of it is stored or none. `now` stamps the run row and the session.
 */
export interface TurnStarts {
  /** A run that claims no session (a webhook's, a sessionless start). Idempotent. */
  run(p: { run: TurnRun; sessionId: string | null; announcement: RunEvent; now: number }): Promise<void>;
  /** Claims an existing session for the run; the session's state, or null when another run holds it (nothing written). */
  turn(p: { sessionId: string; run: TurnRun; message: SessionMessage; announcement: RunEvent; now: number }): Promise<{ state: SessionState } | null>;
  /** Creates the session already claimed by the run, with the user message. */
  newSessionTurn(p: { session: NewSessionFields; run: TurnRun; message: SessionMessage; announcement: RunEvent; now: number }): Promise<SessionRecord>;
}
