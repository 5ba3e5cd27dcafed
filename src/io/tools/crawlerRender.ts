/**
 * Crawler's JavaScript rendering: the page loaded in the headless Chromium the Browser component
 * uses (src/io/browser; every request the page makes goes through the network guard), its DOM
 * serialized once the page settled. Used when Chromium is installed (CHROMIUM_PATH, default
 * /usr/bin/chromium) unless CRAWLER_RENDER_JS=0.
 */
import { access, constants } from 'node:fs/promises';
import { BrowserSession, chromiumPath } from '../browser/session';

/** Whether pages can be rendered here. */
export async function canRender(env: Record<string, string | undefined>): Promise<boolean> {
  if (env.CRAWLER_RENDER_JS?.trim() === '0') return false;
  return access(chromiumPath(env), constants.X_OK).then(
    () => true,
    () => false,
  );
}

/** The page's HTML after its scripts ran (at most a few seconds of network activity after load). */
export async function renderedHtml(url: string, env: Record<string, string | undefined>, signal: AbortSignal): Promise<string> {
  const session = await BrowserSession.open({ env });
  const stop = () => void session.close();
  signal.addEventListener('abort', stop, { once: true });
  try {
    await session.goto(url);
    await session.page.waitForLoadState('networkidle', { timeout: 5_000 }).catch(() => {});
    return await session.page.content();
  } finally {
    signal.removeEventListener('abort', stop);
    await session.close();
  }
}
