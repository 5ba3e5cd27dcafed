/**
 * Reads pytest's JUnit XML and writes the REST suite's summary: counts per resource and per file,
 * and failures grouped by their first error line (ids and numbers that differ per test folded).
 */
import { fileOf } from './resources';

export type Outcome = 'passed' | 'failed' | 'error' | 'skipped';

export interface TestResult {
  classname: string;
  name: string;
  outcome: Outcome;
  /** First line of the failure or error message. */
  message: string;
  /** The traceback pytest recorded. */
  text: string;
}

const ENTITIES: Record<string, string> = { '&lt;': '<', '&gt;': '>', '&quot;': '"', '&apos;': "'", '&amp;': '&' };

function unescapeXml(s: string): string {
  return s.replace(/&(lt|gt|quot|apos|amp|#(\d+)|#x([0-9a-fA-F]+));/g, (m, _n, dec?: string, hex?: string) =>
    dec ? String.fromCodePoint(Number(dec)) : hex ? String.fromCodePoint(parseInt(hex, 16)) : (ENTITIES[m] ?? m),
  );
}

function attr(tag: string, name: string): string {
  const m = new RegExp(`\\s${name}="([^"]*)"`).exec(tag);
  return m ? unescapeXml(m[1]!) : '';
}

/** The test cases of a pytest JUnit XML file. */
export function readJunit(xml: string): TestResult[] {
  const results: TestResult[] = [];
  const re = /<testcase\b([^>]*?)(\/>|>([\s\S]*?)<\/testcase>)/g;
  for (let m = re.exec(xml); m; m = re.exec(xml)) {
    const head = m[1]!;
    const body = m[3] ?? '';
    const failure = /<failure\b([^>]*)>([\s\S]*?)<\/failure>|<failure\b([^>]*)\/>/.exec(body);
    const error = /<error\b([^>]*)>([\s\S]*?)<\/error>|<error\b([^>]*)\/>/.exec(body);
    const skipped = /<skipped\b/.test(body);
    let outcome: Outcome = 'passed';
    let message = '';
    let text = '';
    const firstLine = (tagAttrs: string, text: string) => {
      const msg = attr(` ${tagAttrs}`, 'message') || unescapeXml(text);
      return firstMeaningfulLine(msg);
    };
    if (failure) {
      outcome = 'failed';
      message = firstLine(failure[1] ?? failure[3] ?? '', failure[2] ?? '');
      text = unescapeXml(failure[2] ?? '');
    } else if (error) {
      outcome = 'error';
      message = firstLine(error[1] ?? error[3] ?? '', error[2] ?? '');
      text = unescapeXml(error[2] ?? '');
    } else if (skipped) outcome = 'skipped';
    results.push({ classname: attr(head, 'classname'), name: attr(head, 'name'), outcome, message, text });
  }
  return results;
}

function firstMeaningfulLine(message: string): string {
  const lines = message
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  return lines[0] ?? '(no message)';
}

/** Folds what differs between tests failing for one cause: ids, numbers in ids, long values. */
export function normalizeCause(message: string): string {
  return message
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '<uuid>')
    .replace(/\b[0-9a-f]{16,}\b/gi, '<id>')
    .replace(/\b(tmp|pytest-of-\w+)\/[^\s'"]+/g, '<path>')
    .replace(/0x[0-9a-f]+/gi, '0x…')
    .slice(0, 300);
}

/**
 * The cause a failure is grouped under: its first error line, where an asserted response is
 * reduced to its code and message (and the `assert` line that failed), and a fixture error
 * names the fixture code it came from (one cause cascades through many tests' setup).
 */
export function causeOf(r: TestResult, last?: LastResponse): string {
  let cause = r.message;
  // A bare comparison or a missing key says little alone: add the response it was about.
  if (last && /^(AssertionError: )?assert \S+ (==|!=|in|>=|<=) \S+$|^KeyError|^TypeError/.test(cause)) cause = `${cause} ← ${describeResponse(last)}`;
  const payload = /^AssertionError: .*?[{(]/.test(cause) ? responseOf(cause) : null;
  if (payload) {
    const assertLine = /^E\s+(assert .*)$/m.exec(r.text)?.[1];
    cause = `AssertionError: response ${payload}${assertLine ? ` — ${assertLine}` : ''}`;
  }
  const phase = /^failed on (setup|teardown) with/.exec(r.message)?.[1];
  if (phase) {
    const frames = [...r.text.matchAll(/^(\S+\.py):(\d+): in (\w+)$/gm)].filter((f) => !f[1]!.includes('site-packages'));
    const last = frames.at(-1);
    cause = `[${phase}] ${r.message.replace(/^failed on \w+ with /, '').replace(/^"|"$/g, '')}${last ? ` (in ${last[3]}, ${last[1]!.split('/').pop()}:${last[2]})` : ''}`;
  } else if (r.outcome === 'error') cause = `[error] ${cause}`;
  return normalizeCause(cause);
}

/** `code N: message` of a RAGFlow response shown in an assertion message, or null. */
function responseOf(line: string): string | null {
  const code = /['"]code['"]:\s*(-?\d+)/.exec(line)?.[1];
  if (code === undefined) return null;
  const message = /['"]message['"]:\s*(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")/.exec(line);
  const text = message ? (message[1] ?? message[2] ?? '') : '';
  return code === '0' ? 'code 0 (success)' : `code ${code}${text ? `: ${text}` : ''}`;
}

/** The last HTTP response a failing test received (last_response_plugin.py), by JUnit classname + name. */
export interface LastResponse {
  method: string;
  path: string;
  status: number;
  body: string;
}

/** Reads last_response_plugin.py's JSON lines, keyed like {@link junitKey}. */
export function readLastResponses(jsonl: string): Map<string, LastResponse> {
  const map = new Map<string, LastResponse>();
  for (const line of jsonl.split('\n').filter(Boolean)) {
    const r = JSON.parse(line) as LastResponse & { nodeid: string };
    const parts = r.nodeid.split('::');
    const name = parts.pop()!;
    const classname = [parts[0]!.replace(/\.py$/, '').replace(/\//g, '.'), ...parts.slice(1)].join('.');
    map.set(junitKey(classname, name), r);
  }
  return map;
}

export function junitKey(classname: string, name: string): string {
  return `${classname}::${name}`;
}

/** `METHOD /path → HTTP s, code c: message` with ids folded. */
function describeResponse(r: LastResponse): string {
  let detail = '';
  try {
    const body = JSON.parse(r.body) as { code?: unknown; message?: unknown; error?: { message?: unknown } };
    const message = typeof body.message === 'string' ? body.message : typeof body.error?.message === 'string' ? body.error.message : '';
    detail = `${body.code !== undefined ? `, code ${String(body.code)}` : ''}${message ? `: ${message.slice(0, 100)}` : ''}`;
  } catch {
    detail = r.body === '<stream>' ? ' (stream)' : '';
  }
  return `${r.method} ${r.path} → HTTP ${r.status}${detail}`;
}

export interface Counts {
  collected: number;
  passed: number;
  failed: number;
  errors: number;
  skipped: number;
}

export interface SummaryData {
  commit: string;
  level: string;
  resources: string[];
  seconds: number;
  at: string;
  total: Counts;
  byResource: Record<string, Counts>;
  byFile: Record<string, Counts>;
  causes: Array<{ cause: string; count: number; examples: string[] }>;
}

export type Summary = SummaryData;

const empty = (): Counts => ({ collected: 0, passed: 0, failed: 0, errors: 0, skipped: 0 });

function add(c: Counts, outcome: Outcome): void {
  c.collected++;
  if (outcome === 'passed') c.passed++;
  else if (outcome === 'failed') c.failed++;
  else if (outcome === 'error') c.errors++;
  else c.skipped++;
}

export function summarize(
  results: TestResult[],
  ctx: {
    commit: string;
    level: string;
    resources: string[];
    seconds: number;
    resourceOf: (classname: string) => string;
    excluded: Array<{ paths: string[]; reason: string }>;
    deselected: string[];
    previous: SummaryData | null;
    lastResponses?: Map<string, LastResponse>;
  },
): { data: SummaryData; markdown: string } {
  const total = empty();
  const byResource: Record<string, Counts> = {};
  const byFile: Record<string, Counts> = {};
  const causes = new Map<string, { count: number; examples: string[] }>();
  for (const r of results) {
    add(total, r.outcome);
    add((byResource[ctx.resourceOf(r.classname)] ??= empty()), r.outcome);
    add((byFile[fileOf(r.classname)] ??= empty()), r.outcome);
    if (r.outcome === 'failed' || r.outcome === 'error') {
      const cause = causeOf(r, ctx.lastResponses?.get(junitKey(r.classname, r.name)));
      const entry = causes.get(cause) ?? { count: 0, examples: [] };
      entry.count++;
      if (entry.examples.length < 3) entry.examples.push(`${r.classname.split('.').slice(-1)[0]}::${r.name}`);
      causes.set(cause, entry);
    }
  }
  const data: SummaryData = {
    commit: ctx.commit,
    level: ctx.level,
    resources: ctx.resources,
    seconds: ctx.seconds,
    at: new Date().toISOString(),
    total,
    byResource,
    byFile,
    causes: [...causes.entries()].map(([cause, v]) => ({ cause, ...v })).sort((a, b) => b.count - a.count),
  };
  return { data, markdown: markdownOf(data, ctx) };
}

function pct(c: Counts): string {
  return c.collected ? `${((100 * c.passed) / c.collected).toFixed(1)}%` : '–';
}

function delta(now: number, before: number | undefined): string {
  if (before === undefined || now === before) return String(now);
  return `${now} (${now > before ? '+' : ''}${now - before})`;
}

function row(name: string, c: Counts, p: Counts | undefined): string {
  return `| ${name} | ${delta(c.collected, p?.collected)} | ${delta(c.passed, p?.passed)} | ${delta(c.failed, p?.failed)} | ${delta(c.errors, p?.errors)} | ${c.skipped} | ${pct(c)} |`;
}

function markdownOf(d: SummaryData, ctx: { excluded: Array<{ paths: string[]; reason: string }>; deselected: string[]; previous: SummaryData | null }): string {
  const p = ctx.previous;
  const lines = [
    `# RAGFlow REST suite against agent-canvas`,
    '',
    `RAGFlow commit ${d.commit.slice(0, 12)}, level ${d.level}, ${d.at}, ${d.seconds} s.${p ? ` Changes in parentheses are against the previous run (${p.at}).` : ''}`,
    '',
    '| resource | collected | passed | failed | errors | skipped | pass rate |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...Object.entries(d.byResource)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, c]) => row(name, c, p?.byResource[name])),
    row('**total**', d.total, p?.total),
    '',
    '## Per file',
    '',
    '| file | collected | passed | failed | errors | skipped | pass rate |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...Object.entries(d.byFile)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, c]) => row(name, c, p?.byFile[name])),
    '',
    `## Failures and errors by first error line (${d.causes.length} causes)`,
    '',
    ...d.causes.map((c) => `- **${c.count}** × \`${c.cause.replace(/`/g, "'")}\`  \n  e.g. ${c.examples.join(', ')}`),
    '',
    '## Not run',
    '',
    ...ctx.excluded.map((e) => `- ${e.reason}: ${e.paths.join(', ')}`),
    ...ctx.deselected.map((id) => `- deselected: ${id}`),
    '',
  ];
  return lines.join('\n');
}
