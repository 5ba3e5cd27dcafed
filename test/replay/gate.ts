/**
 * The replay gate: a stored history (the JSON `temporal workflow show --output json` writes)
 * replayed against a workflow bundle. When the code no longer reproduces the history, the verdict
 * names the history file, the SDK's own divergence text, and our decode of where it diverged: the
 * first workflow task whose recorded commands the code no longer emits, found by replaying
 * growing prefixes of the history, and those commands spelled out.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import { IGNORED_LEDGER_SINKS } from '../../activities/reuseSink';

/** One event of a history in its JSON form (only what the decode reads). */
interface JsonEvent {
  eventId: string;
  eventType: string;
  [attributes: string]: unknown;
}
interface JsonHistory {
  events: JsonEvent[];
}

export interface ReplayVerdict {
  file: string;
  ok: boolean;
  /** Set when it failed: the file, the SDK's text and the first divergent workflow task, ready to print. */
  report?: string;
}

export function readHistory(file: string): JsonHistory {
  return JSON.parse(readFileSync(file, 'utf8')) as JsonHistory;
}

/** Replays one stored history; on failure, explains where the code diverged. */
export async function replayStoredHistory(bundlePath: string, file: string): Promise<ReplayVerdict> {
  const history = readHistory(file);
  const name = path.basename(file);
  const error = await replayError(bundlePath, history);
  if (!error) return { file: name, ok: true };
  const sdkText = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  const divergent = await firstDivergentTask(bundlePath, history);
  const lines = [`history ${name} does not replay on the current workflow code.`, `  SDK: ${sdkText}`];
  if (divergent) {
    lines.push(
      `  First divergent workflow task: #${divergent.task} (completed at event ${divergent.completedAt}); the history recorded these commands there, the code now emits others:`,
      ...(divergent.commands.length > 0 ? divergent.commands.map((c) => `    ${c}`) : ['    (none: the task completed without commands)']),
    );
  }
  lines.push('  A change to what a workflow emits goes behind patched() (docs/ARCHITECTURE.md, "Deploying workflow changes").');
  return { file: name, ok: false, report: lines.join('\n') };
}

async function replayError(bundlePath: string, history: JsonHistory): Promise<unknown> {
  try {
    // The original id: workflow code derives ids from it (a sub-agent's child workflow id).
    await Worker.runReplayHistory({ workflowBundle: { codePath: bundlePath }, sinks: IGNORED_LEDGER_SINKS }, history, workflowIdOf(history));
    return null;
  } catch (err) {
    return err;
  }
}

function workflowIdOf(history: JsonHistory): string {
  const started = history.events[0]?.workflowExecutionStartedEventAttributes as { workflowId?: string } | undefined;
  return started?.workflowId ?? 'replay';
}

/**
 * Replays the history cut after each workflow task in turn (a cut history replays like a run still
 * in flight); the first cut that fails holds the divergent task.
 */
async function firstDivergentTask(bundlePath: string, history: JsonHistory): Promise<{ task: number; completedAt: string; commands: string[] } | null> {
  const events = history.events;
  const completions = events.flatMap((e, i) => (e.eventType === 'EVENT_TYPE_WORKFLOW_TASK_COMPLETED' ? [i] : []));
  for (const [n, at] of completions.entries()) {
    const next = events.findIndex((e, i) => i > at && e.eventType === 'EVENT_TYPE_WORKFLOW_TASK_SCHEDULED');
    const cut = next === -1 ? events.length : next;
    if ((await replayError(bundlePath, { ...history, events: events.slice(0, cut) })) === null) continue;
    const commands = events.slice(at + 1, cut).flatMap((e) => describeCommandEvent(e) ?? []);
    return { task: n + 1, completedAt: events[at]!.eventId, commands };
  }
  return null;
}

/** A command's event in words: `event 13 ActivityTaskScheduled recordEvents`, `event 5 MarkerRecorded core_local_activity`. */
export function describeCommandEvent(e: JsonEvent): string | null {
  const type = e.eventType.replace('EVENT_TYPE_', '');
  const a = (key: string) => (e[key] ?? {}) as Record<string, unknown>;
  const detail: Record<string, () => string> = {
    ACTIVITY_TASK_SCHEDULED: () => String((a('activityTaskScheduledEventAttributes').activityType as { name?: string })?.name ?? ''),
    TIMER_STARTED: () => `timer ${String(a('timerStartedEventAttributes').timerId ?? '')}`,
    MARKER_RECORDED: () => String(a('markerRecordedEventAttributes').markerName ?? ''),
    START_CHILD_WORKFLOW_EXECUTION_INITIATED: () =>
      String((a('startChildWorkflowExecutionInitiatedEventAttributes').workflowType as { name?: string })?.name ?? ''),
    SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED: () => 'signal',
    REQUEST_CANCEL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED: () => 'cancel request',
    UPSERT_WORKFLOW_SEARCH_ATTRIBUTES: () => 'search attributes',
    WORKFLOW_PROPERTIES_MODIFIED: () => 'memo',
    WORKFLOW_EXECUTION_COMPLETED: () => 'result',
    WORKFLOW_EXECUTION_FAILED: () => 'failure',
    WORKFLOW_EXECUTION_CANCELED: () => 'canceled',
    WORKFLOW_EXECUTION_CONTINUED_AS_NEW: () => 'continue-as-new',
    WORKFLOW_EXECUTION_UPDATE_ACCEPTED: () => 'update accepted',
    WORKFLOW_EXECUTION_UPDATE_COMPLETED: () => 'update completed',
  };
  const describe = detail[type];
  if (!describe) return null;
  const words = type
    .toLowerCase()
    .split('_')
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');
  return `event ${e.eventId} ${words} ${describe()}`.trimEnd();
}
