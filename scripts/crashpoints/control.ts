/**
 * How the harness arms a crash point in the worker process, and how the worker says it got there:
 * files in one folder (CRASHPOINT_DIR), read synchronously, so arming needs no connection to the
 * worker and a point fires at most once, even across the worker's restarts.
 *
 *   armed.json            what to do where: `{ caseId, point, action, trace }`; renamed to
 *                         fired-<caseId>.json by the worker that reaches the point (atomic: once)
 *   trace-<caseId>.txt    every point the worker passed while the case was armed, one a line
 *   resume-<caseId>       a paused worker goes on once this exists
 */
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** What the worker does at the armed point. */
export type CrashAction =
  /** Dies there (SIGKILL to itself). */
  | 'sigkill'
  /** Asks itself to stop (SIGTERM: the product's graceful drain), and holds a starting activity past the grace. */
  | 'sigterm'
  /** Waits there until the harness says resume (it kills the API meanwhile). */
  | 'pause';

export interface Armed {
  caseId: string;
  /** A point as the worker names it (`llmChat#2:started`), or null to only trace. */
  point: string | null;
  action: CrashAction;
}

/** The workflow interceptor module hook.ts adds to the worker's bundle. */
export const WORKFLOW_HOOK = path.join(path.dirname(fileURLToPath(import.meta.url)), 'workflowHook.ts');

export const armedFile = (dir: string) => path.join(dir, 'armed.json');
export const firedFile = (dir: string, caseId: string) => path.join(dir, `fired-${caseId}.json`);
export const traceFile = (dir: string, caseId: string) => path.join(dir, `trace-${caseId}.txt`);
export const resumeFile = (dir: string, caseId: string) => path.join(dir, `resume-${caseId}`);

export function arm(dir: string, armed: Armed): void {
  writeFileSync(`${armedFile(dir)}.tmp`, JSON.stringify(armed));
  renameSync(`${armedFile(dir)}.tmp`, armedFile(dir));
}

export function disarm(dir: string): void {
  rmSync(armedFile(dir), { force: true });
}

export function readArmed(dir: string): Armed | null {
  try {
    return JSON.parse(readFileSync(armedFile(dir), 'utf8')) as Armed;
  } catch {
    return null;
  }
}

export function hasFired(dir: string, caseId: string): boolean {
  return existsSync(firedFile(dir, caseId));
}

export function tracedPoints(dir: string, caseId: string): string[] {
  try {
    return readFileSync(traceFile(dir, caseId), 'utf8').split('\n').filter(Boolean);
  } catch {
    return [];
  }
}
