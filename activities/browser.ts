/**
 * The `browserStep` activity: one action of a Browser node in the run's Chromium session. The
 * worker keeps one session per run and node; a step that finds none (a new worker, a crashed
 * browser) opens one at the page the last step ended on, so a crash repeats at most this step.
 * Sessions idle for IDLE_MS are closed; so are all of them when the worker stops.
 */
import { Context } from '@temporalio/activity';
import type { BrowserObservation, BrowserStepRequest } from '../src/core/components/callContracts';
import { downloadPath } from '../src/core/components/files';
import { AppError } from '../src/errors';
import { BrowserSession, refusals } from '../src/io/browser/session';
import { mimeTypeOf } from '../src/io/files/fileText';
import type { Logger } from '../src/io/log';
import type { Store } from '../src/io/store/contract';
import { toFailure } from './llm';

const IDLE_MS = 5 * 60_000;

export function createBrowserActivities(deps: { store: Store; log: Logger; env: Record<string, string | undefined> }) {
  const sessions = new Map<string, Promise<BrowserSession>>();
  const reaper = setInterval(() => {
    for (const [key, pending] of sessions)
      void pending.then(
        (s) => {
          if (Date.now() - s.lastUsed > IDLE_MS) {
            sessions.delete(key);
            void s.close();
          }
        },
        () => sessions.delete(key),
      );
  }, 30_000);
  reaper.unref();

  async function sessionFor(key: string, url: string | null): Promise<BrowserSession> {
    const existing = sessions.get(key);
    if (existing) {
      const s = await existing.catch(() => null);
      if (s && !s.closed) return s;
      sessions.delete(key);
    }
    const opening = BrowserSession.open({ env: deps.env });
    sessions.set(key, opening);
    opening.catch(() => sessions.delete(key));
    const s = await opening;
    if (url) await s.goto(url).catch(() => {});
    return s;
  }

  return {
    async browserStep(request: BrowserStepRequest, options: { maxRetries: number }): Promise<BrowserObservation> {
      const ctx = Context.current();
      const exhausted = ctx.info.attempt > options.maxRetries;
      const key = `${request.runId}/${request.componentId}`;
      const beat = setInterval(() => ctx.heartbeat(), 1000);
      try {
        ctx.heartbeat();
        if (!request.act && request.close) {
          const s = await sessions.get(key)?.catch(() => null);
          sessions.delete(key);
          await s?.close();
          return { url: request.url ?? '', title: '', text: '', elements: [], downloads: [] };
        }
        const session = await sessionFor(key, request.url);
        session.lastUsed = Date.now();
        refusals.delete(session.page);
        let error: string | undefined;
        const act = request.act;
        try {
          if (act?.action === 'goto') await session.goto(act.url);
          else if (act?.action === 'click') await session.click(act.index);
          else if (act?.action === 'type') await session.type(act.index, act.text, act.submit === true);
          else if (act?.action === 'back') await session.back();
        } catch (err) {
          // A refused or failed action is the model's to handle: it sees why and chooses again.
          error = refusals.get(session.page) ?? (err instanceof Error ? err.message.split('\n')[0] : String(err));
        }
        error ??= refusals.get(session.page);
        const view = await session.view();
        const downloads: Array<Record<string, unknown>> = [];
        const found = await session.takeDownloads();
        if (found.length > 0) {
          const run = await deps.store.runs.getById(request.runId);
          if (run)
            for (const f of found) {
              const mimeType = mimeTypeOf(f.name, f.mimeType);
              const meta = await deps.store.files.put({
                tenantId: run.tenant_id,
                origin: 'output',
                runId: run.id,
                name: f.name,
                mimeType,
                content: f.bytes,
              });
              downloads.push({ doc_id: meta.id, filename: f.name, mime_type: mimeType, size: meta.size, download_url: downloadPath(meta.id) });
            }
        }
        if (request.close) {
          sessions.delete(key);
          await session.close();
        }
        return { ...view, downloads, ...(error ? { error } : {}) };
      } catch (err) {
        if (ctx.cancellationSignal.aborted) throw ctx.cancellationSignal.reason ?? err;
        const appErr =
          err instanceof AppError ? err : new AppError('TOOL_UNAVAILABLE', `Browser: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
        // The session may be what failed: the retry opens a fresh one at the last page.
        const s = await sessions.get(key)?.catch(() => null);
        sessions.delete(key);
        await s?.close();
        deps.log.warn('browser step failed', { code: appErr.code, attempt: ctx.info.attempt, error: appErr.message });
        throw toFailure(appErr, exhausted);
      } finally {
        clearInterval(beat);
      }
    },
  };
}
