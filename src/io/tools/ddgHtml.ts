/**
 * Reads DuckDuckGo's HTML results page (html.duckduckgo.com/html/, and the lite page's classes):
 * the organic results with their target URLs, and the hidden fields of the "Next" form that
 * fetches the following page. DuckDuckGo publishes no web-results API; this markup is what its
 * own no-JavaScript page and every DuckDuckGo client (RAGFlow's `duckduckgo_search` included) read.
 */

/** One web result, with the field names of RAGFlow's DuckDuckGo `json` output. */
export interface DdgResult {
  title: string;
  href: string;
  body: string;
}

export interface DdgPage {
  results: DdgResult[];
  /** Form fields that fetch the next page, or null on the last page. */
  next: Record<string, string> | null;
  /** DuckDuckGo answered with its bot challenge instead of results. */
  challenged: boolean;
}

const NAMED: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  hellip: '…',
  mdash: '—',
  ndash: '–',
  laquo: '«',
  raquo: '»',
  middot: '·',
};

/** Decodes HTML character references (named ones DuckDuckGo uses, and every numeric one). */
export function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, ref: string) => {
    if (ref[0] === '#') {
      const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : m;
    }
    return NAMED[ref.toLowerCase()] ?? m;
  });
}

/** Visible text of an HTML fragment, whitespace collapsed. */
export function htmlText(fragment: string): string {
  return decodeEntities(fragment.replace(/<[^>]*>/g, ''))
    .replace(/\s+/g, ' ')
    .trim();
}

function attr(attrs: string, name: string): string | undefined {
  const m = new RegExp(`\\b${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, 'i').exec(attrs);
  return m ? decodeEntities(m[1] ?? m[2] ?? m[3] ?? '') : undefined;
}

/** The result's real URL: DuckDuckGo links through `/l/?uddg=<target>`. */
export function targetUrl(href: string): string {
  try {
    const u = new URL(href, 'https://duckduckgo.com');
    const wrapped = u.searchParams.get('uddg');
    return wrapped ?? u.toString();
  } catch {
    return href;
  }
}

/** Ads link through DuckDuckGo's ad redirect; they are not search results. */
function isAd(href: string, target: string): boolean {
  return /duckduckgo\.com\/y\.js|[?&]ad_domain=/.test(href) || /duckduckgo\.com\/y\.js/.test(target);
}

// Title links and snippets, in document order, whatever element DuckDuckGo wraps them in.
const PARTS = /<(a|div|td|span)\b([^>]*\bclass\s*=\s*["'][^"']*\b(result__a|result__snippet|result-link|result-snippet)\b[^"']*["'][^>]*)>([\s\S]*?)<\/\1>/gi;

function nextForm(html: string): Record<string, string> | null {
  for (const form of html.matchAll(/<form\b[^>]*>([\s\S]*?)<\/form>/gi)) {
    const inputs = [...form[1]!.matchAll(/<input\b([^>]*)>/gi)].map((m) => m[1]!);
    if (!inputs.some((a) => /^next\b/i.test(attr(a, 'value') ?? '') && /submit/i.test(attr(a, 'type') ?? ''))) continue;
    const fields: Record<string, string> = {};
    for (const a of inputs) {
      const name = attr(a, 'name');
      if (name && (attr(a, 'type') ?? 'text').toLowerCase() !== 'submit') fields[name] = attr(a, 'value') ?? '';
    }
    if (fields.q) return fields;
  }
  return null;
}

/** Parses one results page. */
export function parseDdgHtml(html: string): DdgPage {
  const results: DdgResult[] = [];
  let current: DdgResult | null = null;
  let skipping = false;
  for (const m of html.matchAll(PARTS)) {
    const attrs = m[2]!;
    const cls = m[3]!;
    const inner = m[4]!;
    if (cls === 'result__a' || cls === 'result-link') {
      const raw = attr(attrs, 'href') ?? '';
      const href = targetUrl(raw);
      skipping = !raw || isAd(raw, href);
      current = skipping ? null : { title: htmlText(inner), href, body: '' };
      if (current) results.push(current);
    } else if (current && !skipping && !current.body) {
      current.body = htmlText(inner);
    }
  }
  const challenged = results.length === 0 && /anomaly-modal|class=["'][^"']*\banomaly\b|bots use DuckDuckGo too/i.test(html);
  return { results, next: nextForm(html), challenged };
}

/** The `vqd` token DuckDuckGo's search page embeds; its JSON endpoints (news.js) require it. */
export function extractVqd(html: string): string | null {
  const m = /vqd\s*=\s*["']([^"']+)["']/.exec(html) ?? /vqd=([\d-]+)&/.exec(html) ?? /["']vqd["']\s*:\s*["']([^"']+)["']/.exec(html);
  return m ? m[1]! : null;
}
