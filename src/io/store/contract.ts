/**
 * The storage contract. One implementation (src/io/store/*.ts) serves both PostgreSQL (`pg`, when
 * DATABASE_URL is set) and PGlite (embedded default) with the same SQL. Every read and write of
 * tenant data is scoped by tenant id.
 *
 * Times are milliseconds since epoch (RAGFlow's `create_time`/`update_time`); dates are
 * `YYYY-MM-DD HH:MM:SS` strings in UTC (RAGFlow's `create_date`/`update_date`).
 */
import type { KnowledgeStore } from './knowledgeTypes';
import type { MemoryStore } from './memoryTypes';
import type { CanvasListFilter, CanvasPatch, CanvasRecord, CanvasVersionRecord, NewCanvas } from './canvasTypes';
import type { FileStore } from './fileTypes';
import type { Ledger } from './ledgerTypes';
import type { CallTraces } from './callTraceTypes';
import type { McpServerRecord, NewMcpServer } from './mcpTypes';
import type { RunEnd, RunIndex, RunRecord, RunRecordStatus } from './runTypes';
import type { SessionListFilter, SessionMessage, SessionRecord } from './sessionTypes';
import type { TurnStarts } from './startTypes';
import type { TenantsRepository } from './tenantTypes';
import type { RunEvent } from '../../core/engine/runEvents';
import type { TravelStore } from './travelTypes';
import type { RunChangesFeed } from './runChanges';
import type { MessageQueueStore } from './messageQueueTypes';
import type { AdmissionStore } from './admissionTypes';
import type { SessionState } from '../../core/engine/state';

export type { Db, DbKind, ListOptions, Queryable, QueryResult } from './dbContract';

export type { ApiKeyRecord, KeyOwner, TenantRecord, TenantSummary } from './tenantTypes';

export type { CanvasListFilter, CanvasPatch, CanvasRecord, CanvasVersionRecord, NewCanvas } from './canvasTypes';

export type { SessionListFilter, SessionMessage, SessionRecord } from './sessionTypes';

export type { JournalEntry, TravelRecord, TravelStore } from './travelTypes';
export type { RunEnd, RunIndex, RunListFilter, RunRecord, RunRecordStatus, RunSummary } from './runTypes';

export type { NewSessionFields, TurnRun, TurnStarts } from './startTypes';

export type { FileMeta, FileOrigin, FileStore, NewFile } from './fileTypes';

export type { McpServerRecord, NewMcpServer } from './mcpTypes';

export type { ProviderWindows } from './ledgerTypes';
export type { CallTrace, CallTraces, TracedMessage, TracedRequest, TracedResponse } from './callTraceTypes';

export type { RunChange, RunChangesFeed } from './runChanges';

export type { MessagePolicy, MessageQueueStore, QueuedMessage, QueuedRequest } from './messageQueueTypes';
export type { AdmissionStore, AdmissionTurn, AdmittedStart } from './admissionTypes';

export type { Ledger, ModelCallEntry, ModelCallReuse, UsageGroup, UsageRow, UsageTotals, SavedTotals } from './ledgerTypes';

/** Position in a run's event log; events sort by (seq, sub). */
export interface EventCursor {
  seq: number;
  sub: number;
}

/** A run event as the log holds it; `terminal` is true for its last (workflow_finished, run_failed). */
export type StoredEvent = RunEvent & { terminal: boolean };

/**
 * Every read and write of the database, as typed methods. The database handle itself stays inside
 * src/io/store (lint:layers rule `store-owns-sql`); tests reach it with `storeDb` (storeDb.ts).
 */
export interface Store {
  tenants: TenantsRepository;

  /** RAGFlow's long-term agent memory: memories and their messages (src/io/store/memories.ts). */
  memories: MemoryStore;

  canvases: {
    create(input: NewCanvas): Promise<CanvasRecord>;
    get(tenantId: string, id: string): Promise<CanvasRecord | null>;
    /** A canvas by id in any tenant: only for routes whose caller has no API key (webhooks). */
    getById(id: string): Promise<CanvasRecord | null>;
    /** Case-insensitive title lookup within a tenant. */
    findByTitle(tenantId: string, title: string): Promise<CanvasRecord | null>;
    list(tenantId: string, filter: CanvasListFilter): Promise<{ items: CanvasRecord[]; total: number }>;
    update(tenantId: string, id: string, patch: CanvasPatch): Promise<CanvasRecord | null>;
    delete(tenantId: string, id: string): Promise<boolean>;
    listVersions(tenantId: string, canvasId: string): Promise<CanvasVersionRecord[]>;
    getVersion(tenantId: string, canvasId: string, versionId: string): Promise<CanvasVersionRecord | null>;
  };

  sessions: {
    create(input: {
      id: string;
      tenantId: string;
      agentId: string;
      name: string;
      userId: string;
      source: string;
      messages: SessionMessage[];
      state: SessionState;
    }): Promise<SessionRecord>;
    get(tenantId: string, agentId: string, id: string): Promise<SessionRecord | null>;
    list(tenantId: string, agentId: string, filter: SessionListFilter): Promise<{ items: SessionRecord[]; total: number }>;
    delete(tenantId: string, agentId: string, id: string): Promise<boolean>;
    /**
     * Claims the session for a run: sets active_run_id when it is null (or already this run).
     * Returns false when another run holds it.
     */
    claim(id: string, runId: string): Promise<boolean>;
    /**
     * When `runId` holds the session: appends messages, stores the new state and releases the
     * claim, in one statement. Otherwise (e.g. a retry after success) changes nothing.
     */
    completeTurn(id: string, runId: string, messages: SessionMessage[], state: SessionState): Promise<void>;
    /** Releases the claim of `runId` without other changes (failed or canceled runs). */
    release(id: string, runId: string): Promise<void>;
    /**
     * When `runId` holds the session: releases it and removes the user messages stamped at or
     * after `since` (unix seconds), i.e. the turn that never ran. Returns false otherwise.
     */
    abandonTurn(id: string, runId: string, since: number): Promise<boolean>;
    /** Releases up to `limit` sessions held by a missing run or one that ended before `endedBefore` (ms); returns how many. */
    releaseOrphans(endedBefore: number, limit: number): Promise<number>;
    appendMessages(id: string, messages: SessionMessage[]): Promise<void>;
  };

  runs: {
    /** Creates the run; creating an id that exists returns the existing run (idempotent). */
    create(input: {
      id: string;
      tenantId: string;
      canvasId: string;
      sessionId: string | null;
      workflowId: string;
      canvasVersionId?: string | null;
      parentRunId?: string | null;
    }): Promise<RunRecord>;
    get(tenantId: string, id: string): Promise<RunRecord | null>;
    /** Any tenant: for activities, which act on behalf of the run's own tenant. */
    getById(id: string): Promise<RunRecord | null>;
    setStatus(id: string, status: RunRecordStatus, extra?: { result?: Record<string, unknown> | null; error?: string | null }): Promise<void>;
    /**
     * Ends the run in one statement: its row, the session it held (the turn completed when `end`
     * says how, else released) and its closing events. Readers see all of it or none of it; a
     * retry changes nothing twice.
     */
    finish(id: string, end: RunEnd, events: RunEvent[]): Promise<void>;
    /** Deletes a run recorded for a start that was refused before anything ran. */
    discard(id: string): Promise<void>;
    /**
     * Sets an active run's status to the one its workflow reports, only if the row is still as it
     * was read (status and update time): a write of the run's own since then wins. False otherwise.
     */
    correctStatus(id: string, seen: { status: RunRecordStatus; updateTime: number }, status: 'running' | 'paused'): Promise<boolean>;
    /** Marks a running or paused run failed; false when it had already ended. */
    failIfActive(id: string, error: string): Promise<boolean>;
    /** Running or paused runs last updated before `before` (ms), in (update_time, id) order after `after`. */
    unsettled(filter: { before: number; after: { time: number; id: string } | null; limit: number }): Promise<RunRecord[]>;
    /** The run's last stored event, if any. */
    lastEvent(id: string): Promise<{ seq: number; message_id: string; terminal: boolean } | null>;
    /** The run holding a session (running or paused), if any. */
    activeForSession(tenantId: string, sessionId: string): Promise<RunRecord | null>;
    /** Runs a run started (its sub-agents), oldest first. */
    children(parentRunId: string): Promise<RunRecord[]>;
  };

  events: {
    /**
     * Appends events; an event already stored at the same (run, seq, sub) is left as it is, so
     * retried appends are harmless. Notifies listeners of the run.
     */
    append(runId: string, events: RunEvent[]): Promise<void>;
    /** Events after `after` (exclusive) in (seq, sub) order, superseded ones left out. */
    list(runId: string, after: EventCursor | null, limit: number): Promise<StoredEvent[]>;
    /**
     * Appends a streaming call's events to its stream slot `slot.seq`, as attempt `slot.attempt`.
     * Refused, atomically, when a newer attempt has claimed the slot: nothing is stored and it
     * throws AppError STREAM_SUPERSEDED. A first write of an unclaimed slot claims it.
     */
    appendStream(runId: string, slot: { seq: number; attempt: number }, events: RunEvent[]): Promise<void>;
    /**
     * Claims a stream slot for `attempt` (a retried streaming call, before it looks at the slot):
     * from then on the store refuses every write of an older attempt, and every such write that
     * got in before is stored. False when a newer attempt already holds the slot.
     */
    claimSlot(runId: string, seq: number, attempt: number): Promise<boolean>;
    /**
     * Hides the tokens of an earlier attempt of a stream slot (a retried streaming call). With
     * `attempt`, only while that attempt holds the slot: a retry that stalled between its claim and
     * this call (a newer attempt claimed meanwhile) must not hide the newer attempt's tokens.
     */
    supersede(runId: string, seq: number, attempt?: number): Promise<number>;
    /** The last event of a run with this name (e.g. the `user_inputs` of the current pause). */
    lastNamed(runId: string, event: string): Promise<StoredEvent | null>;
    /** Highest sub stored for a stream slot (0 when none). */
    lastSub(runId: string, seq: number): Promise<number>;
    /**
     * The `message` and `message_retry` events of the cursor's stream slot up to the cursor,
     * superseded ones included: what a reader that got to the cursor was sent of that slot.
     */
    slotUpTo(runId: string, cursor: EventCursor): Promise<StoredEvent[]>;
    /** Whether the run's terminal event (workflow_finished, run_failed) is stored. */
    hasTerminal(runId: string): Promise<boolean>;
    /** Events named `event` carrying `messageId`, from runs of one canvas of one tenant, in order. */
    listByMessage(tenantId: string, canvasId: string, messageId: string, event: string): Promise<StoredEvent[]>;
    /**
     * Subscribes to new events of a run; resolves with an unsubscribe function. `onNew` gets the
     * appended events themselves when the append was made in this process on an embedded store
     * (PGlite: every writer is in this process), in the order they were stored; otherwise nothing,
     * and the subscriber reads them.
     */
    subscribe(runId: string, onNew: (appended?: StoredEvent[]) => void): Promise<() => Promise<void>>;
  };

  blobs: {
    /** Stores a large value produced by a run; returns its id. */
    put(runId: string, content: string): Promise<string>;
    get(id: string): Promise<string | null>;
    /** Several at once (ids not found are absent from the map). */
    getMany(ids: string[]): Promise<Map<string, string>>;
    /** Deletes the values stored under `runId` (an ingestion's payloads once its chunks are committed). */
    deleteForRun(runId: string): Promise<void>;
  };

  /** A run's files: uploads it reads and files it makes, their bytes and parsed text. */
  files: FileStore;

  /** Runs across rows: the runs page, the active-runs gauge. */
  runIndex: RunIndex;
  /** Run starts and status changes, numbered per tenant order: the runs list's stream (runChanges.ts). */
  runChanges: RunChangesFeed;

  /** Time travel: runs' batch snapshots, and where forked runs came from (travel.ts). */
  travel: TravelStore;

  /** The rows a run or a session's turn starts with, each start in one statement (turnStarts.ts). */
  starts: TurnStarts;

  mcpServers: {
    create(input: NewMcpServer): Promise<McpServerRecord>;
    get(tenantId: string, id: string): Promise<McpServerRecord | null>;
    list(tenantId: string): Promise<McpServerRecord[]>;
    update(tenantId: string, id: string, patch: Partial<Omit<NewMcpServer, 'tenantId'>>): Promise<McpServerRecord | null>;
    delete(tenantId: string, id: string): Promise<boolean>;
  };

  /** Datasets, documents and chunks (knowledge bases). */
  knowledge: KnowledgeStore;

  /** The cost ledger: model calls with their tokens and cost, and the calls replays reused (ledger.ts). */
  ledger: Ledger;

  /** What each attempt of a model call sent and got, for the run view's model call panel (callTraces.ts). */
  callTraces: CallTraces;
  /** Agents' message policies and the messages queued behind a running session turn (messageQueue.ts). */
  messageQueue: MessageQueueStore;
  /** Runs in flight per tenant under TENANT_MAX_RUNS, and the runs waiting their turn (admission.ts). */
  admission: AdmissionStore;

  /** Resolves once the database answers a trivial query (the health probe); rejects otherwise. */
  ping(): Promise<void>;

  close(): Promise<void>;
}
