/**
 * Categorize: asks the model which category the query belongs to and routes the run there.
 * As in RAGFlow, the category whose name occurs most often in the answer wins; with no match the
 * last category is taken.
 */
import { z } from 'zod';
import { pyJson, parseRef, type VariableRef } from '../dsl/refs';
import type { LlmChatResult } from './callContracts';
import { bareRef, idList, nonNegInt, str } from './common';
import { chatRequest, llmParamsShape } from './llmPrompt';
import type { ComponentContext, ComponentDef } from './definition';
import { lazySchema } from '../dsl/lazySchema';

const CategorySchema = lazySchema(() =>
  z.looseObject({
    description: z.preprocess((v) => (v === null || v === undefined ? '' : v), z.string()),
    examples: z.preprocess(
      (v) => (v === null || v === undefined ? [] : typeof v === 'string' ? v.split('\n') : v),
      z.array(z.preprocess((v) => (v === null || v === undefined ? '' : String(v)), z.string())),
    ),
    to: idList.refine((ids) => ids.length > 0, "'to' must name at least one component"),
  }),
);

const CategorizeParams = lazySchema(() =>
  z
    .looseObject({
      ...llmParamsShape,
      message_history_window_size: nonNegInt(1),
      query: str('sys.query'),
      category_description: z.record(z.string(), CategorySchema),
    })
    .superRefine((p, ctx) => {
      const names = Object.keys(p.category_description);
      if (names.length === 0) ctx.addIssue({ code: 'custom', path: ['category_description'], message: 'at least one category is required' });
      if (names.some((n) => n.trim() === '')) ctx.addIssue({ code: 'custom', path: ['category_description'], message: 'a category name must not be empty' });
    }),
);

export type CategorizeParams = z.infer<typeof CategorizeParams>;

function queryRef(p: CategorizeParams): VariableRef | null {
  return parseRef(p.query || 'sys.query');
}

/** The classification system prompt (RAGFlow's structure, our wording). */
export function categorizeSystemPrompt(p: CategorizeParams): string {
  const names = Object.keys(p.category_description);
  const descriptions = Object.entries(p.category_description)
    .filter(([, c]) => c.description)
    .map(([name, c]) => `\n------\nCategory: ${name}\nDescription: ${c.description}`);
  const examples = Object.entries(p.category_description).flatMap(([name, c]) =>
    c.examples.filter((e) => e.trim()).map((e) => `USER: "${e.replace(/\n/g, '    ')}" → ${name}`),
  );
  let prompt = `
You classify user questions. Read the input and answer with exactly ONE of these categories:
 - ${names.join('\n - ')}

What each category means:
 - ${descriptions.join('\n')}

---- Instructions ----
 - Consider what is said explicitly and what is implied
 - Prefer the most specific category that applies
 - Answer with the category name only, without explanations
`;
  if (examples.length > 0) prompt += `\n---- Examples ----\n${examples.join('\n')}\n`;
  return prompt;
}

function queryText(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'string' ? value : pyJson(value);
}

/**
 * RAGFlow's decision rule: the category whose name occurs most often in the answer (ignoring
 * case and surrounding spaces), else the last one.
 */
export function pickCategory(p: CategorizeParams, answer: string): string {
  const names = Object.keys(p.category_description);
  const lower = answer.toLowerCase();
  let best = names[names.length - 1]!;
  let bestCount = 0;
  for (const name of names) {
    // Trimmed: category names saved with a stray space (as in RAGFlow's own templates) still match.
    const needle = name.trim().toLowerCase();
    let count = 0;
    if (needle) for (let i = lower.indexOf(needle); i >= 0; i = lower.indexOf(needle, i + needle.length)) count++;
    if (count > bestCount) {
      best = name;
      bestCount = count;
    }
  }
  return best;
}

function userPrompt(p: CategorizeParams, ctx: ComponentContext): { prompt: string; query: string } {
  const ref = queryRef(p);
  const query = queryText(ref ? ctx.resolve(ref) : '');
  const msg = ctx.history(p.message_history_window_size);
  if (msg.length === 0) msg.push({ role: 'user', content: '' });
  msg[msg.length - 1] = { ...msg[msg.length - 1]!, content: query };
  const lines = msg.map((m) => `${m.role.toUpperCase()}: "${m.content.replace(/\n/g, '')}"`).join(' | ');
  return { prompt: `\n---- Real Data ----\n${lines} →\n`, query };
}

export const Categorize: ComponentDef<CategorizeParams> = {
  name: 'Categorize',
  params: CategorizeParams,
  role: 'router',
  execution: 'activity',
  outputNames: () => ['category_name'],
  inputRefs: (p) => {
    const ref = queryRef(p);
    return ref ? [ref] : [];
  },
  paramRefs: (p) => bareRef(['query'], p.query),
  targets: (p) =>
    Object.entries(p.category_description).flatMap(([name, c]) => c.to.map((target, i) => ({ path: ['category_description', name, 'to', i], target }))),
  thoughts: (p) =>
    `Which should it fall into: ${Object.keys(p.category_description)
      .map((c) => `\`${c}\``)
      .join(', ')}? ...`,
  run(p, ctx) {
    const { prompt, query } = userPrompt(p, ctx);
    const request = chatRequest(p, categorizeSystemPrompt(p), [{ role: 'user', content: prompt }]);
    return {
      kind: 'call',
      call: { activity: 'llmChat', request },
      summary: `classify into ${Object.keys(p.category_description).length} categories`,
      inputs: { [p.query || 'sys.query']: query },
    };
  },
  onResult(p, _ctx, result) {
    const name = pickCategory(p, (result as LlmChatResult).content);
    const next = p.category_description[name]!.to;
    return { kind: 'done', outputs: { category_name: name, _next: next }, next };
  },
};
