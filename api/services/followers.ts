/**
 * Which runs a client of this API process is following right now (a completion request waiting
 * for or streaming its turn, or a reader of `/runs/{id}/events`). A session's next question uses
 * it to tell an abandoned turn (nobody is waiting for it: its client went away) from one a client
 * is still reading: the abandoned one is superseded, the followed one keeps the session (see
 * turns/supersede.ts).
 */
const following = new Map<string, number>();

/** Marks `runId` followed until the returned function is called (idempotent). */
export function followRun(runId: string): () => void {
  following.set(runId, (following.get(runId) ?? 0) + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const n = (following.get(runId) ?? 1) - 1;
    if (n <= 0) following.delete(runId);
    else following.set(runId, n);
  };
}

export function isFollowed(runId: string): boolean {
  return following.has(runId);
}

/** The key a session is followed by, from before its turn's run id is known. */
export function sessionKey(sessionId: string): string {
  return `session:${sessionId}`;
}
