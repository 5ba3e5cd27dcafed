/**
 * Headless Chromium for the Browser node: Debian's `chromium` (CHROMIUM_PATH, default
 * /usr/bin/chromium) driven by playwright-core, a fresh user data directory per session. The
 * browser never connects anywhere itself: every request a page makes (navigations, redirects,
 * subresources) is intercepted and fetched by the worker through the network guard (src/io/net:
 * no private, loopback or metadata address unless NETWORK_ALLOW_HOSTS allows it), one hop at a
 * time — a redirect goes back to Chromium as a redirect, so its target is intercepted and checked
 * in turn — and Chromium's own proxy is a closed port, so anything that escaped interception
 * (WebSockets, prefetches) goes nowhere.
 *
 * Only http(s) pages are opened: `chrome://`, `file://`, `view-source:`, `devtools://` and the
 * like never reach the network, so the guard above would not see them. A goto is refused
 * before Chromium gets it, and every navigation of the page (a link clicked, a redirect, a
 * script's `location = …`) is checked when it commits: one to another scheme is left for
 * about:blank and reported as the step's refusal.
 */
import { access, constants, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Download, Page, Route } from 'playwright-core';
import { AppError } from '../../errors';
import { guardedFetch } from '../net';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  // Nothing leaves the browser but through the interception below.
  '--proxy-server=http://127.0.0.1:9',
  '--proxy-bypass-list=<-loopback>',
];

export interface BrowserSettings {
  env: Record<string, string | undefined>;
}

export function chromiumPath(env: Record<string, string | undefined>): string {
  return env.CHROMIUM_PATH?.trim() || '/usr/bin/chromium';
}

export interface PageElement {
  index: number;
  kind: 'link' | 'field' | 'button';
  text: string;
  href?: string;
}

export interface PageView {
  url: string;
  title: string;
  text: string;
  elements: PageElement[];
}

export interface DownloadedFile {
  name: string;
  mimeType: string;
  bytes: Uint8Array;
}

const TEXT_LIMIT = 4000;
const ELEMENT_LIMIT = 80;
/** Headers Chromium must not get back from a fulfilled response (the body is already decoded and whole). */
const DROPPED_RESPONSE_HEADERS = new Set(['content-encoding', 'content-length', 'transfer-encoding', 'connection', 'keep-alive']);

/** Runs in the page (plain JavaScript: the worker has no DOM types): numbers visible links and fields, reads the text. */
const VIEW_SCRIPT = `(() => {
  const out = [];
  for (const el of document.querySelectorAll('a[href], input:not([type=hidden]), textarea, select, button')) {
    if (out.length >= ${ELEMENT_LIMIT}) break;
    if (!(el.offsetWidth || el.offsetHeight || el.getClientRects().length)) continue;
    const index = out.length;
    el.setAttribute('data-ac-index', String(index));
    const tag = el.tagName.toLowerCase();
    const label = (el.innerText || el.getAttribute('aria-label') || el.getAttribute('placeholder') || el.getAttribute('name') || el.getAttribute('value') || '').trim().replace(/\\s+/g, ' ').slice(0, 100);
    if (tag === 'a') out.push({ index, kind: 'link', text: label, href: el.href });
    else if (tag === 'button' || (tag === 'input' && ['submit', 'button'].includes(el.type))) out.push({ index, kind: 'button', text: label });
    else out.push({ index, kind: 'field', text: label });
  }
  const text = ((document.body && document.body.innerText) || '').replace(/\\n{3,}/g, '\\n\\n').trim();
  return { title: document.title, text: text.length > ${TEXT_LIMIT} ? text.slice(0, ${TEXT_LIMIT}) + '…' : text, elements: out };
})()`;

/** URLs a page may show: http(s), the blank page, and Chromium's page for a refused request. */
function mayShow(url: string): boolean {
  return /^https?:/i.test(url) || url === 'about:blank' || url.startsWith('chrome-error://chromewebdata');
}

/** The URL a goto may open (http or https), or the refusal naming its scheme. */
export function checkNavigable(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AppError('TOOL_BAD_REQUEST', `Browser: "${raw}" is not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new AppError('TOOL_BAD_REQUEST', `Browser: ${url.protocol}// pages cannot be opened; only http and https are allowed`);
  return url.href;
}

/** One Chromium with one page, for one Browser node of one run. */
export class BrowserSession {
  private downloads: Download[] = [];
  lastUsed = Date.now();

  private constructor(
    private readonly context: BrowserContext,
    readonly page: Page,
    private readonly dataDir: string,
  ) {
    page.on('download', (d) => this.downloads.push(d));
    // Navigations the page starts itself (links, redirects, scripts) are checked as they commit.
    page.on('framenavigated', (frame) => {
      if (frame !== page.mainFrame() || mayShow(frame.url())) return;
      const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(frame.url())?.[0] ?? frame.url();
      refusals.set(page, `Browser: the page went to a ${scheme} URL, which is not allowed (only http and https); left for about:blank`);
      void page.goto('about:blank').catch(() => {});
    });
  }

  static async open(settings: BrowserSettings): Promise<BrowserSession> {
    const executablePath = chromiumPath(settings.env);
    try {
      await access(executablePath, constants.X_OK);
    } catch {
      throw new AppError(
        'TOOL_UNAVAILABLE',
        `Browser: Chromium is not installed at ${executablePath} (install Debian's chromium package or set CHROMIUM_PATH)`,
      );
    }
    const { chromium } = await import('playwright-core');
    const dataDir = await mkdtemp(join(tmpdir(), 'agent-canvas-browser-'));
    let context: BrowserContext;
    try {
      context = await chromium.launchPersistentContext(dataDir, {
        executablePath,
        headless: true,
        args: CHROMIUM_ARGS,
        acceptDownloads: true,
        serviceWorkers: 'block',
        timeout: 30_000,
        // The server's stop owns signals (server/boot/shutdown.ts): Playwright's own handlers would
        // close every browser at the first SIGTERM/SIGHUP, under steps the drain lets finish, and
        // exit at SIGINT without the drain. Its exit hook still kills Chromium when the process ends.
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
      });
    } catch (err) {
      await rm(dataDir, { recursive: true, force: true });
      throw new AppError('TOOL_UNAVAILABLE', `Browser: Chromium did not start: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
    }
    await context.route('**/*', (route) => guardedRoute(route, settings.env));
    const page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(30_000);
    return new BrowserSession(context, page, dataDir);
  }

  get closed(): boolean {
    return this.page.isClosed();
  }

  async goto(url: string): Promise<void> {
    await this.page.goto(checkNavigable(url), { waitUntil: 'domcontentloaded' });
  }

  /** The page as the model reads it; numbers its links and fields (`data-ac-index`) for the next action. */
  async view(): Promise<PageView> {
    // A page that is still navigating (an error page replacing a refused one) loses its context: read again.
    let seen: Omit<PageView, 'url'> | null = null;
    for (let attempt = 1; !seen; attempt++) {
      await this.page.waitForLoadState('domcontentloaded').catch(() => {});
      try {
        seen = (await this.page.evaluate(VIEW_SCRIPT)) as Omit<PageView, 'url'>;
      } catch (err) {
        if (attempt >= 5 || !/context was destroyed|navigat/i.test(err instanceof Error ? err.message : String(err))) throw err;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
    return { url: this.page.url(), ...seen };
  }

  private element(index: number) {
    return this.page.locator(`[data-ac-index="${index}"]`).first();
  }

  async click(index: number): Promise<void> {
    const el = this.element(index);
    if ((await el.count()) === 0) throw new AppError('TOOL_BAD_REQUEST', `there is no element [${index}] on this page`);
    await el.click({ timeout: 10_000 });
    await this.page.waitForLoadState('domcontentloaded').catch(() => {});
  }

  async type(index: number, text: string, submit: boolean): Promise<void> {
    const el = this.element(index);
    if ((await el.count()) === 0) throw new AppError('TOOL_BAD_REQUEST', `there is no element [${index}] on this page`);
    await el.fill(text, { timeout: 10_000 });
    if (submit) {
      await el.press('Enter');
      await this.page.waitForLoadState('domcontentloaded').catch(() => {});
    }
  }

  async back(): Promise<void> {
    await this.page.goBack({ waitUntil: 'domcontentloaded' });
  }

  /** Files downloaded since the last call. */
  async takeDownloads(): Promise<DownloadedFile[]> {
    const pending = this.downloads.splice(0);
    const out: DownloadedFile[] = [];
    for (const d of pending) {
      const path = await d.path().catch(() => null);
      if (!path) continue;
      out.push({ name: d.suggestedFilename() || 'download.bin', mimeType: 'application/octet-stream', bytes: new Uint8Array(await readFile(path)) });
    }
    return out;
  }

  async close(): Promise<void> {
    await this.context.close().catch(() => {});
    await rm(this.dataDir, { recursive: true, force: true }).catch(() => {});
  }
}

/**
 * Fetches an intercepted request through the network guard and hands the answer to Chromium. A
 * refused destination aborts the request (`blockedbyclient`) and is remembered for the step.
 */
async function guardedRoute(route: Route, env: Record<string, string | undefined>): Promise<void> {
  const request = route.request();
  const url = request.url();
  if (url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
  try {
    const headers = await request.allHeaders();
    const forwarded = Object.fromEntries(Object.entries(headers).filter(([k]) => !k.startsWith(':') && k !== 'host' && k !== 'content-length'));
    const body = request.postDataBuffer() ?? undefined;
    const res = await guardedFetch(
      url,
      { method: request.method(), headers: forwarded, ...(body ? { body } : {}) },
      { env, service: 'Browser', maxRedirects: 0, timeoutMs: 30_000 },
    );
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(res.headers)) if (v !== undefined && !DROPPED_RESPONSE_HEADERS.has(k)) out[k] = Array.isArray(v) ? v.join(', ') : v;
    await route.fulfill({ status: res.status, headers: out, body: res.body });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    refusals.set(route.request().frame().page(), message);
    await route.abort('blockedbyclient').catch(() => {});
  }
}

/** The last refusal of the guard per page (a navigation's reason, shown to the model). */
export const refusals = new WeakMap<Page, string>();
