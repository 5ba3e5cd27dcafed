/**
 * Crawler: fetches one web page through the network guard (the URL is the model's or the
 * canvas's, so its host must be public or allowed by NETWORK_ALLOW_HOSTS; each redirect is
 * re-checked, at most 5) and returns it as RAGFlow's `extract_type` asks: `markdown` (turndown),
 * `html` (the page without scripts, styles and other non-content elements) or `content` (the
 * readable text). As RAGFlow renders pages in a headless browser (crawl4ai), an HTML page is
 * rendered in the Browser component's Chromium when it is installed (crawlerRender.ts), else
 * read as served.
 */
import { convert } from 'html-to-text';
import TurndownService from 'turndown';
import { AppError } from '../../errors';
import type { ToolExecutor } from './executor';
import { canRender, renderedHtml } from './crawlerRender';
import { queryOf, textParam } from './search';
import { fetchText } from './webHttp';

/** Elements that are never content (the head's title and metadata included). */
const NOISE = ['head', 'script', 'style', 'noscript', 'iframe', 'template', 'svg', 'canvas', 'object', 'embed'];

export function cleanHtml(html: string): string {
  let out = html.replace(/<!--[\s\S]*?-->/g, '');
  for (const tag of NOISE) out = out.replace(new RegExp(`<${tag}\\b[\\s\\S]*?</${tag}\\s*>`, 'gi'), '').replace(new RegExp(`<${tag}\\b[^>]*/?>`, 'gi'), '');
  return out.trim();
}

export function htmlToMarkdown(html: string): string {
  const td = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
  return td.turndown(cleanHtml(html)).trim();
}

export function htmlToText(html: string): string {
  return convert(cleanHtml(html), {
    wordwrap: false,
    selectors: [
      { selector: 'a', options: { ignoreHref: true } },
      { selector: 'img', format: 'skip' },
    ],
  }).trim();
}

export const crawl: ToolExecutor = async (x) => {
  const url = queryOf(x.args);
  if (!url) return { text: '', outputs: { formalized_content: '' } };
  if (!/^https?:\/\//i.test(url)) throw new AppError('TOOL_BAD_REQUEST', `Crawler: "${url.slice(0, 200)}" is not an absolute http(s) URL`);
  const proxy = textParam(x.params, 'proxy');
  const page = await fetchText(url, {
    headers: { accept: 'text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5' },
    signal: x.signal,
    service: 'Crawler',
    guard: { env: x.env },
    timeoutMs: 60_000,
    ...(proxy ? { proxy } : {}),
  });
  const type = textParam(x.params, 'extract_type') || 'markdown';
  const isHtml = /^\s*(<!doctype html|<html|<head|<body|<div|<p\b|<!--)/i.test(page.text) || /<\/(p|div|body|a)>/i.test(page.text);
  // An HTML page is then rendered with its scripts (the fetch above checked the target and its
  // redirects); a page Chromium cannot render is read as served. A proxy is for fetches only.
  let html = page.text;
  if (isHtml && !proxy && (await canRender(x.env))) {
    html = await renderedHtml(page.url, x.env, x.signal).catch((err: unknown) => {
      if (x.signal.aborted) throw err;
      return page.text;
    });
  }
  const content = !isHtml ? page.text.trim() : type === 'html' ? cleanHtml(html) : type === 'content' ? htmlToText(html) : htmlToMarkdown(html);
  return { text: content, outputs: { formalized_content: content } };
};
