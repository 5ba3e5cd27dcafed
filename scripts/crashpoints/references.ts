/**
 * The reference runs the crash points are taken in, and what the scripted model answers them.
 * Answers are long enough (~30 words) for a stream to be cut in the middle; the answer a point
 * slows down (mid-stream points) streams a word every 150 ms, longer than a graceful stop's grace.
 */
import { readFileSync } from 'node:fs';
import { dsl } from '../../test/helpers/canvasKit';
import type { RecordedCall, Reply, ScriptedLlm } from '../../test/helpers/scriptedLlm';

export interface Reference {
  name: string;
  canvas: Record<string, unknown>;
  query: unknown;
  /** The form's answer, for a run that pauses at a UserFillUp. */
  form?: Record<string, unknown>;
  /** A pipeline reference: the canvas is an ingestion pipeline, and this document is uploaded to a dataset it parses. */
  document?: PipelineDocument;
  /** Settings the API is started with for this reference only (a run takes its settings from the API that starts it). */
  apiEnv?: Record<string, string>;
}

export interface PipelineDocument {
  name: string;
  body: string;
}

/** RAGFlow's "chunk summary" pipeline template: File → Parser → TokenChunker → Extractor (a model call per chunk) → Tokenizer. */
const chunkSummary = JSON.parse(readFileSync(new URL('../../test/fixtures/pipelines/chunk_summary.json', import.meta.url), 'utf8')) as Record<string, unknown>;

/** Steps of the chain that continues as new: enough for its history to pass the API's RUN_CONTINUE_AS_NEW_EVENTS (100, the least it takes). */
const LONG_CHAIN_STEPS = 24;

function longChain(): Record<string, unknown> {
  const nodes: Parameters<typeof dsl>[0] = { begin: { name: 'Begin', downstream: ['LLM:s1'] } };
  for (let i = 1; i <= LONG_CHAIN_STEPS; i++)
    nodes[`LLM:s${i}`] = {
      name: 'LLM',
      params: { ...model, sys_prompt: `Long chain step ${i}.${i > 1 ? ` Use {LLM:s${i - 1}@content}.` : ''}` },
      downstream: [i < LONG_CHAIN_STEPS ? `LLM:s${i + 1}` : 'Message:out'],
    };
  nodes['Message:out'] = { name: 'Message', params: { content: [`{LLM:s${LONG_CHAIN_STEPS}@content}`] } };
  return dsl(nodes);
}

const model = { llm_id: 'm@OpenAI' };
const search = { component_name: 'TavilySearch', name: 'Search', params: { api_key: 'tvly-crashpoints' } };

/** A deterministic answer of `words` words that says what it answers. */
export function answer(what: string, words = 30): string {
  return [what, ...Array.from({ length: words - 1 }, (_, i) => `w${i + 1}`)].join(' ');
}

export const REFERENCES: Reference[] = [
  {
    name: 'llm-chain',
    canvas: dsl({
      begin: { name: 'Begin', downstream: ['LLM:first'] },
      'LLM:first': { name: 'LLM', params: { ...model, sys_prompt: 'Chain first step.' }, downstream: ['LLM:second'] },
      'LLM:second': { name: 'LLM', params: { ...model, sys_prompt: 'Chain second step. Use {LLM:first@content}.' }, downstream: ['Message:out'] },
      'Message:out': { name: 'Message', params: { content: ['{LLM:second@content}'] } },
    }),
    query: 'go',
  },
  {
    name: 'agent-tools',
    canvas: dsl({
      begin: { name: 'Begin', downstream: ['Agent:researcher'] },
      'Agent:researcher': {
        name: 'Agent',
        params: { ...model, sys_prompt: 'Research twice with the search tool, then answer.', max_rounds: 4, tools: [search] },
        downstream: ['Message:out'],
      },
      'Message:out': { name: 'Message', params: { content: ['{Agent:researcher@content}'] } },
    }),
    query: 'research',
  },
  {
    name: 'user-fill-up',
    canvas: dsl({
      begin: { name: 'Begin', downstream: ['UserFillUp:approve'] },
      'UserFillUp:approve': {
        name: 'UserFillUp',
        params: { tips: 'Who approves?', inputs: { approver: { type: 'line', optional: false } } },
        downstream: ['LLM:sum'],
      },
      'LLM:sum': {
        name: 'LLM',
        params: { ...model, sys_prompt: 'Summarize the approval.', prompts: [{ role: 'user', content: 'Approver: {UserFillUp:approve@approver}' }] },
        downstream: ['Message:m'],
      },
      'Message:m': { name: 'Message', params: { content: ['{LLM:sum@content}'] } },
    }),
    query: 'approve',
    form: { approver: 'Ada' },
  },
  {
    // The answer's workflow task writes events with local activities (no model call follows to carry them).
    name: 'form-to-message',
    canvas: dsl({
      begin: { name: 'Begin', downstream: ['UserFillUp:ask'] },
      'UserFillUp:ask': { name: 'UserFillUp', params: { tips: 'Name?', inputs: { name: { type: 'line', optional: false } } }, downstream: ['Message:m'] },
      'Message:m': { name: 'Message', params: { content: ['Hello {UserFillUp:ask@name}, your request is filed.'] } },
    }),
    query: 'hello',
    form: { name: 'Ada' },
  },
  {
    name: 'iteration',
    canvas: dsl({
      begin: { name: 'Begin', downstream: ['Iteration:it'] },
      'Iteration:it': { name: 'Iteration', params: { items_ref: 'sys.query', outputs: { out: { ref: 'LLM:item@content' } } }, downstream: ['Message:m'] },
      'IterationItem:i': { name: 'IterationItem', parent_id: 'Iteration:it', downstream: ['LLM:item'] },
      'LLM:item': {
        name: 'LLM',
        parent_id: 'Iteration:it',
        params: { ...model, sys_prompt: 'Iteration item.', prompts: [{ role: 'user', content: 'Item: {IterationItem:i@item}' }] },
      },
      'Message:m': { name: 'Message', params: { content: ['{Iteration:it@out}'] } },
    }),
    // sys.query as a JSON list: Iteration reads a list from text that is one.
    query: '["refund", "exchange", "repair"]',
  },
  {
    name: 'sub-agent',
    canvas: dsl({
      begin: { name: 'Begin', downstream: ['Agent:lead'] },
      'Agent:lead': {
        name: 'Agent',
        params: {
          ...model,
          sys_prompt: 'Lead agent.',
          tools: [{ component_name: 'Agent', name: 'Helper', params: { ...model, sys_prompt: 'Helper agent.', tools: [search] } }],
        },
        downstream: ['Message:m'],
      },
      'Message:m': { name: 'Message', params: { content: ['{Agent:lead@content}'] } },
    }),
    query: 'delegate',
  },
  {
    // Its API starts runs that continue as new after 100 history events: the chain passes them halfway.
    name: 'continue-as-new',
    canvas: longChain(),
    query: 'go on',
    apiEnv: { RUN_CONTINUE_AS_NEW_EVENTS: '100' },
  },
  {
    name: 'ingest-pipeline',
    canvas: chunkSummary,
    query: null,
    document: {
      name: 'gearbox.md',
      body: Array.from({ length: 4 }, (_, i) => `## Part ${i}\n\nParagraph ${i} explains how the gearbox model ${i} is serviced and oiled.`).join('\n\n'),
    },
  },
];

const toolsDone = (call: RecordedCall) => call.body.messages.filter((m) => m.role === 'tool').length;
const toolCall = (id: string, name: string, args: unknown): Reply => ({ toolCalls: [{ id, name, arguments: JSON.stringify(args) }] });
const has = (call: RecordedCall, needle: string) => call.body.messages.some((m) => typeof m.content === 'string' && m.content.includes(needle));
const lastUser = (call: RecordedCall) => String(call.body.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '');

/** The reply to a call of any reference run (null: not one of theirs). */
function replyTo(call: RecordedCall): Reply | null {
  if (has(call, 'Chain first step.')) return { content: answer('first') };
  if (has(call, 'Chain second step.')) return { content: answer('second') };
  if (has(call, 'Research twice')) {
    const done = toolsDone(call);
    return done < 2 ? toolCall(`search-${done + 1}`, 'tavily_search_0', { query: `facts ${done + 1}` }) : { content: answer('researched') };
  }
  if (has(call, 'Summarize the approval.')) return { content: answer(`approved-by-${lastUser(call).includes('Ada') ? 'Ada' : 'nobody'}`) };
  if (has(call, 'Iteration item.')) return { content: answer(`item-${/refund|exchange|repair/.exec(lastUser(call))?.[0] ?? 'unknown'}`, 12) };
  const step = /Long chain step (\d+)\./.exec(String(call.body.messages.find((m) => m.role === 'system')?.content ?? ''));
  if (step) return { content: answer(`step-${step[1]}`, 8) };
  // The pipeline's Extractor: a summary of the chunk it is given.
  if (has(call, 'precise summarizer')) return { content: `SUMMARY ${lastUser(call).split(/\s+/).slice(3, 9).join(' ')}` };
  if (has(call, 'Lead agent.'))
    return toolsDone(call) === 0 ? toolCall('helper', 'Helper_0', { user_prompt: 'look it up', reasoning: 'r', context: 'c' }) : { content: answer('lead') };
  if (has(call, 'Helper agent.')) return toolsDone(call) === 0 ? toolCall('h', 'tavily_search_0', { query: 'helper facts' }) : { content: answer('helper') };
  return null;
}

/** Which model call of the current case to slow down (its index among all calls), for a mid-stream point. */
export interface Pacer {
  /** Calls before the case started. */
  from: number;
  /** The nth call of the case (1-based) streams slowly; 0: none. */
  nth: number;
}

export function scriptReferences(llm: ScriptedLlm, pacer: Pacer): void {
  llm.when((call, index) => {
    const reply = replyTo(call);
    if (!reply || !('content' in reply) || 'toolCalls' in reply) return reply ?? undefined;
    return index - pacer.from + 1 === pacer.nth ? { ...reply, chunkWords: 1, delayMs: 150 } : { ...reply, chunkWords: 3 };
  });
}
