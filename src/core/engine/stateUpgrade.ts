/**
 * Earlier builds' run states: the flat v1 state that continue-as-new checkpoints in older
 * histories hold, and how it is brought up to this build's v2 (src/core/engine/state.ts).
 */
import type { ToolCallingTable } from '../runSettings';
import type { CallGroup, DeferredCall, PauseState, PendingCall, Phase, RunRecords, RunState, RunStatus } from './state';
import type { Outcome } from '../components/definition';

/** The flat v1 state (and the older field-less ones), as continue-as-new checkpoints in histories hold it. */
export interface RunStateV1 extends RunRecords {
  v: 1;
  runId: string;
  messageId: string;
  status: RunStatus;
  startedAt: number;
  path: string[];
  idx: number;
  phase: Phase;
  partials: string[];
  deferred: Record<string, DeferredCall>;
  pending: Record<string, PendingCall>;
  groups: Record<string, CallGroup>;
  callSeq: number;
  seq: number;
  runInputs: Record<string, unknown>;
  shown: string;
  toolCalling?: ToolCallingTable | null;
  inputsEcho: Record<string, unknown> | null;
  createdAt: number;
  pause?: PauseState | null;
  fillInputs?: Record<string, unknown> | null;
  fillExpired?: { waitedS: number | null } | null;
  loops?: Record<string, number>;
  webhook?: Record<string, unknown> | null;
}

/** v1 outcomes called their work notices `progress`. */
function upgradeDeferred(deferred: Record<string, DeferredCall>): Record<string, DeferredCall> {
  const renamed = (o: Outcome): Outcome => {
    const { progress, ...rest } = o as Outcome & { progress?: Outcome['notices'] };
    return progress && !rest.notices ? { ...rest, notices: progress } : rest;
  };
  return Object.fromEntries(Object.entries(deferred).map(([id, d]) => [id, { ...d, outcome: renamed(d.outcome) }]));
}

/**
 * A state from an earlier build brought up to this one: a v1 checkpoint (flat fields; the older
 * ones without pause/form/loop/webhook fields) regrouped into v2, a v2 state as it is. Replay
 * tests over stored histories keep this honest: an old run continues with the same calls.
 */
export function upgradeState(raw: RunState | RunStateV1): RunState {
  if (raw.v === 2) return raw;
  const {
    idx,
    phase,
    partials,
    deferred,
    pending,
    groups,
    callSeq,
    seq,
    runInputs,
    shown,
    inputsEcho,
    fillInputs,
    fillExpired,
    webhook,
    pause,
    loops,
    toolCalling,
    v: _v,
    ...same
  } = raw;
  return {
    ...same,
    v: 2,
    cursor: { position: idx, phase },
    calls: { pending, groups, deferred: upgradeDeferred(deferred), lastId: callSeq },
    events: { lastSeq: seq },
    display: { shownText: shown, awaitingRender: partials },
    inputs: { echo: inputsEcho, values: runInputs, webhook: webhook ?? null },
    pause: pause ?? null,
    form: { submitted: fillInputs ?? null, expired: fillExpired ?? null },
    loops: loops ?? {},
    toolCalling: toolCalling ?? null,
  };
}
