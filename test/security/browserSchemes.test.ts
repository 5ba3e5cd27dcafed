/**
 * The Browser tool opens http(s) pages only: a goto to `chrome://`, `file://` or `view-source:`
 * is refused before Chromium gets it, and a page that sends itself elsewhere (a link clicked, a
 * script's `location`) is left for about:blank with the refusal reported. Runs Debian's headless
 * Chromium against a local site.
 */
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserSession, refusals } from '../../src/io/browser/session';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) console.warn(`[browser scheme tests] skipped: no Chromium at ${CHROMIUM} (apt-get install chromium)`);

let site: Server;
let siteUrl = '';
let session: BrowserSession;

beforeAll(async () => {
  if (!haveChromium) return;
  site = createServer((req, res) => {
    res.setHeader('content-type', 'text/html; charset=utf-8');
    if (req.url === '/redirect') {
      res.writeHead(302, { location: 'file:///etc/passwd' });
      res.end();
    } else if (req.url === '/jump')
      res.end('<html><body><script>location.href = URL.createObjectURL(new Blob(["<p>made here</p>"], { type: "text/html" }))</script></body></html>');
    else res.end('<html><head><title>Start</title></head><body><a href="chrome://version">Version</a><a href="file:///etc/passwd">Passwords</a></body></html>');
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  session = await BrowserSession.open({ env: { NETWORK_ALLOW_HOSTS: '127.0.0.1', CHROMIUM_PATH: CHROMIUM } });
}, 60_000);

afterAll(async () => {
  await session?.close();
  site?.close();
});

describe.skipIf(!haveChromium)('the Browser tool’s pages', () => {
  it.each([
    ['chrome://version', 'chrome:'],
    ['chrome://settings/passwords', 'chrome:'],
    ['file:///etc/passwd', 'file:'],
    ['view-source:https://example.com/', 'view-source:'],
    ['javascript:alert(1)', 'javascript:'],
  ])('refuses to open %s', async (url, scheme) => {
    await expect(session.goto(url)).rejects.toMatchObject({
      code: 'TOOL_BAD_REQUEST',
      message: `Browser: ${scheme}// pages cannot be opened; only http and https are allowed`,
    });
    const view = await session.view();
    expect(view.url).not.toMatch(/^(chrome|file|view-source|javascript):/);
    expect(view.text).not.toMatch(/root:|Chromium\s+\d+/);
  });

  it('opens http pages, and a link to chrome:// or file:// clicked there never shows', async () => {
    await session.goto(siteUrl);
    expect((await session.view()).title).toBe('Start');
    for (const index of [0, 1]) {
      await session.goto(siteUrl);
      await session.view();
      await session.click(index).catch(() => {});
      await new Promise((r) => setTimeout(r, 300));
      const view = await session.view();
      expect(view.url).toMatch(/^(http:|about:blank)/);
      expect(view.text).not.toMatch(/root:|Chromium\s+\d+/);
    }
  });

  it('does not follow a redirect to file://', async () => {
    await session.goto(`${siteUrl}/redirect`).catch(() => {});
    const view = await session.view();
    expect(view.url).toMatch(/^(http:|about:blank|chrome-error:)/);
    expect(view.text).not.toMatch(/root:/);
  });

  it('leaves a page that sends itself to another scheme (a blob: page) for about:blank, and says why', async () => {
    refusals.delete(session.page);
    await session.goto(`${siteUrl}/jump`).catch(() => {});
    for (let i = 0; i < 30 && !refusals.get(session.page); i++) await new Promise((r) => setTimeout(r, 100));
    expect(refusals.get(session.page)).toBe('Browser: the page went to a blob: URL, which is not allowed (only http and https); left for about:blank');
    await new Promise((r) => setTimeout(r, 300));
    const view = await session.view();
    expect(view.url).toBe('about:blank');
    expect(view.text).not.toContain('made here');
  });
});
