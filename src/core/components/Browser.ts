/**
 * Browser: RAGFlow's LLM-driven browsing node (agent/component/browser.py, which drives
 * browser-use). Here the model and the browser take turns, each turn its own activity: the model
 * (`llmChat`) reads the task and the current page (its text, and its links and fields by number)
 * and answers one JSON action — open a URL, follow a link, type into a field, go back, or finish
 * with the answer; the `browserStep` activity carries the action out in the run's headless
 * Chromium (kept by the worker per run and node, rebuilt at the last page if the worker lost it)
 * and answers the page it landed on. A crash repeats at most one step. Every request the page
 * makes passes the network guard. `max_steps` bounds the browser actions. Outputs: `content` (the
 * model's answer) and `downloaded_files` (download infos of files the pages downloaded).
 */
import { z } from 'zod';
import type { BrowserAction, BrowserObservation, ChatMessage, LlmChatResult } from './callContracts';
import { bool, positiveInt } from './common';
import type { ComponentContext, ComponentDef, Outcome } from './definition';
import { buildPrompt, chatRequest, llmInputRefs, llmParamsShape, parseModelJson, promptProblem, type LlmParams } from './llmPrompt';
import { lazySchema } from '../dsl/lazySchema';

const BrowserParams = lazySchema(() =>
  z.looseObject({
    ...llmParamsShape,
    prompts: z.preprocess(
      (v) =>
        v === undefined || v === null || v === '' ? [{ role: 'user', content: '{sys.query}' }] : typeof v === 'string' ? [{ role: 'user', content: v }] : v,
      z.array(z.looseObject({ role: z.string().default('user'), content: z.string().default('') })).min(1, '[Browser] Prompts should not be empty'),
    ),
    max_steps: positiveInt(30),
    headless: bool(true),
    enable_default_extensions: bool(false),
    chromium_sandbox: bool(false),
    persist_session: bool(true),
    upload_sources: z.unknown().optional(),
  }),
);

export type BrowserParams = z.infer<typeof BrowserParams>;

const INSTRUCTIONS = `You control a web browser to complete the user's task. Each turn you see the current page: its URL, title, text, and its links and fields, each with a number.
Answer with one JSON object and nothing else, one of:
{"action": "goto", "url": "https://..."}           open a URL
{"action": "click", "index": 3}                     follow link or press button number 3
{"action": "type", "index": 5, "text": "...", "submit": true}   type into field number 5 (submit: press Enter)
{"action": "back"}                                  go back one page
{"action": "done", "content": "..."}               finish: content is your complete answer to the task`;

interface BrowserMemo {
  phase: 'model' | 'browse' | 'close';
  steps: number;
  system: string;
  task: ChatMessage[];
  /** One line per action taken, for the model's context. */
  trail: string[];
  url: string | null;
  page: BrowserObservation | null;
  downloads: Array<Record<string, unknown>>;
  content: string;
  /** Answers that were no valid action, in a row. */
  invalid: number;
}

function pageText(o: BrowserObservation | null): string {
  if (!o) return 'No page is open yet.';
  const elements = o.elements.map((e) => `[${e.index}] ${e.kind}: ${e.text}${e.href ? ` -> ${e.href}` : ''}`).join('\n');
  return [
    `Current page: ${o.url}`,
    `Title: ${o.title}`,
    ...(o.error ? [`The last action failed: ${o.error}`] : []),
    `Text:\n${o.text}`,
    `Links and fields:\n${elements || '(none)'}`,
  ].join('\n\n');
}

function modelCall(p: LlmParams, memo: BrowserMemo): Outcome {
  const state = [
    memo.trail.length > 0 ? `Actions so far:\n${memo.trail.map((t, i) => `${i + 1}. ${t}`).join('\n')}` : '',
    pageText(memo.page),
    `Steps left: ${memo.steps}. Answer with the JSON of your next action.`,
  ]
    .filter((s) => s)
    .join('\n\n');
  const messages: ChatMessage[] = [...memo.task, { role: 'user', content: state }];
  const request = { ...chatRequest(p, memo.system, messages), show: false };
  return {
    kind: 'call',
    call: { activity: 'llmChat', request },
    summary: `browser: next action (${memo.trail.length + 1})`,
    memo: { ...memo, phase: 'model' },
  };
}

function browse(ctx: ComponentContext, memo: BrowserMemo, act: BrowserAction | null, close = false): Outcome {
  return {
    kind: 'call',
    call: {
      activity: 'browserStep',
      request: { runId: ctx.runId, componentId: ctx.id, step: memo.trail.length, url: memo.url, act, ...(close ? { close: true } : {}) },
    },
    summary: act ? `browser: ${act.action}${act.action === 'goto' ? ` ${act.url}` : ''}` : 'browser: close',
    memo: { ...memo, phase: close ? 'close' : 'browse' },
  };
}

function finish(ctx: ComponentContext, memo: BrowserMemo, content: string): Outcome {
  // The session is closed by one last step when a page was opened.
  if (memo.url) return browse(ctx, { ...memo, content }, null, true);
  return { kind: 'done', outputs: { content, downloaded_files: memo.downloads } };
}

function readAction(answer: string): BrowserAction | { action: 'done'; content: string } | null {
  const parsed = parseModelJson(answer);
  if (!parsed.ok || typeof parsed.value !== 'object' || parsed.value === null) return null;
  const v = parsed.value as Record<string, unknown>;
  switch (v.action) {
    case 'goto':
      return typeof v.url === 'string' && v.url ? { action: 'goto', url: v.url } : null;
    case 'click':
      return Number.isInteger(Number(v.index)) ? { action: 'click', index: Number(v.index) } : null;
    case 'type':
      return Number.isInteger(Number(v.index)) ? { action: 'type', index: Number(v.index), text: String(v.text ?? ''), submit: v.submit === true } : null;
    case 'back':
      return { action: 'back' };
    case 'done':
      return { action: 'done', content: typeof v.content === 'string' ? v.content : JSON.stringify(v.content ?? '') };
    default:
      return null;
  }
}

function describe(a: BrowserAction): string {
  if (a.action === 'goto') return `opened ${a.url}`;
  if (a.action === 'click') return `clicked [${a.index}]`;
  if (a.action === 'type') return `typed into [${a.index}]`;
  return 'went back';
}

export const Browser: ComponentDef<BrowserParams> = {
  name: 'Browser',
  params: BrowserParams as unknown as z.ZodType<BrowserParams>,
  role: 'plain',
  execution: 'activity',
  outputNames: () => ['content', 'downloaded_files'],
  inputRefs: (p) => llmInputRefs(p as unknown as LlmParams),
  thoughts: () => 'Browsing the web...',
  run: (p, ctx) => {
    const lp = p as unknown as LlmParams;
    const built = buildPrompt(lp, ctx);
    const problem = promptProblem(built.messages);
    if (problem) return { kind: 'error', message: problem };
    const memo: BrowserMemo = {
      phase: 'model',
      steps: p.max_steps,
      system: [INSTRUCTIONS, built.system].filter((s) => s.trim()).join('\n\n'),
      task: built.messages,
      trail: [],
      url: null,
      page: null,
      downloads: [],
      content: '',
      invalid: 0,
    };
    return { ...modelCall(lp, memo), inputs: built.inputs };
  },
  onResult: (p, ctx, result, raw) => {
    const lp = p as unknown as LlmParams;
    const memo = raw as BrowserMemo;
    if (memo.phase === 'close') return { kind: 'done', outputs: { content: memo.content, downloaded_files: memo.downloads } };
    if (memo.phase === 'browse') {
      const page = result as BrowserObservation;
      const next: BrowserMemo = { ...memo, page, url: /^https?:/i.test(page.url) ? page.url : memo.url, downloads: [...memo.downloads, ...page.downloads] };
      return modelCall(lp, next);
    }
    const answer = (result as LlmChatResult).content;
    const act = readAction(answer);
    if (!act) {
      if (memo.invalid >= 2) return finish(ctx, memo, answer);
      const page = memo.page ? { ...memo.page, error: 'your answer was not one of the JSON actions' } : memo.page;
      return modelCall(lp, { ...memo, invalid: memo.invalid + 1, page });
    }
    if (act.action === 'done') return finish(ctx, memo, act.content);
    if (memo.steps <= 0) return finish(ctx, memo, memo.page ? `${memo.page.title}\n\n${memo.page.text}` : answer);
    return browse(ctx, { ...memo, invalid: 0, steps: memo.steps - 1, trail: [...memo.trail, describe(act)] }, act);
  },
};
