/**
 * Reads Prometheus text exposition (format 0.0.4) into series, for tests that scrape /metrics and
 * compare figures before and after. Deliberately strict: a line that is not a comment and does
 * not parse as `name{labels} value` fails the test, so a malformed page cannot pass unnoticed.
 */
export interface Series {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)(\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?\s*/gy;

export function parsePrometheusText(text: string): Series[] {
  const out: Series[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const m = LINE.exec(line);
    if (!m) throw new Error(`not a Prometheus sample line: ${line}`);
    const labels: Record<string, string> = {};
    const body = m[3] ?? '';
    LABEL.lastIndex = 0;
    let consumed = 0;
    for (let l = LABEL.exec(body); l; l = LABEL.exec(body)) {
      labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
      consumed = LABEL.lastIndex;
    }
    if (consumed !== body.length) throw new Error(`bad labels in: ${line}`);
    const value = m[4] === '+Inf' ? Infinity : m[4] === '-Inf' ? -Infinity : Number(m[4]);
    // Prometheus reads values with Go's ParseFloat: NaN in any case (prom-client writes `Nan`).
    if (Number.isNaN(value) && m[4]!.toLowerCase() !== 'nan') throw new Error(`bad value in: ${line}`);
    out.push({ name: m[1]!, labels, value });
  }
  return out;
}

/** Sum of the samples named `name` whose labels include `labels` (0 when none). */
export function sumOf(series: Series[], name: string, labels: Record<string, string> = {}): number {
  return series.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((total, s) => total + s.value, 0);
}

/** Whether any sample is named `name` with `labels`. */
export function has(series: Series[], name: string, labels: Record<string, string> = {}): boolean {
  return series.some((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}

export async function scrape(url: string): Promise<{ status: number; contentType: string; text: string; series: Series[] }> {
  const res = await fetch(url);
  const text = await res.text();
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', text, series: res.ok ? parsePrometheusText(text) : [] };
}

/** Reads until `check` holds (figures move after the response that caused them), or fails naming `what`. */
export async function eventually(read: () => Promise<Series[]>, check: (s: Series[]) => boolean, what: string, timeoutMs = 30_000): Promise<Series[]> {
  const until = Date.now() + timeoutMs;
  let last = await read();
  while (!check(last)) {
    if (Date.now() > until) throw new Error(`${what}: not seen within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
    last = await read();
  }
  return last;
}
