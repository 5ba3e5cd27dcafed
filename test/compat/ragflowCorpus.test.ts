/**
 * Compatibility with real RAGFlow canvases (../shared/ragflow-dsl, not copied into the project):
 * every one loads and validates, and those made only of the components this build runs go to
 * workflow_finished over HTTP, on Temporal, with the scripted model and local stand-ins for
 * the web services they call (the knowledge canvases: test/compat/knowledgeCorpus.test.ts).
 * examples/exesql.json names a database host that exists only in RAGFlow's docker-compose, so it
 * is run to its clean failure.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCanvasInput } from '../../src/core/dsl/input';
import { compileCanvas } from '../../src/core/engine';
import { api, parseSse, startHarness, type Harness } from '../helpers/appHarness';
import type { RecordedCall } from '../helpers/scriptedLlm';
import { startWebSearchServer, type WebSearchServer } from '../helpers/webSearchServer';

const corpus = path.resolve(__dirname, '../../../shared/ragflow-dsl');
const present = existsSync(corpus);
if (!present) console.warn(`[compat] skipped: ${corpus} is absent (the RAGFlow canvases live beside the project in ../shared)`);

function files(): string[] {
  return ['examples', 'templates'].flatMap((dir) =>
    readdirSync(path.join(corpus, dir))
      .filter((f) => f.endsWith('.json'))
      .map((f) => `${dir}/${f}`),
  );
}

function load(file: string): Record<string, unknown> {
  return JSON.parse(readFileSync(path.join(corpus, file), 'utf8')) as Record<string, unknown>;
}

describe.skipIf(!present)('RAGFlow canvases', () => {
  it('finds all 13 canvases', () => {
    expect(files()).toHaveLength(13);
  });

  it.each(present ? files() : [])('loads and validates %s', (file) => {
    const input = readCanvasInput(load(file));
    const result = compileCanvas(input.dsl, { base: input.base });
    expect(result.ok ? [] : result.problems).toEqual([]);
  });

  describe('runs over HTTP', () => {
    let h: Harness;
    let web: WebSearchServer;
    beforeAll(async () => {
      web = await startWebSearchServer();
      h = await startHarness({ env: { TAVILY_BASE_URL: web.url, TAVILY_API_KEY: 'tvly-test' } });
      // The scripted model answers classification prompts by the words of the question.
      h.llm.whenPromptIncludes('You classify user questions', (call) => {
        const prompt = call.body.messages.map((m) => String(m.content)).join('\n');
        const data = prompt.split('---- Real Data ----').pop() ?? '';
        const offers = (category: string) => prompt.split('---- Real Data ----')[0]!.includes(` - ${category}`);
        if (offers('After-sales issues') && /broke|change a new/i.test(data)) return { content: 'After-sales issues' };
        if (offers('Negative review') && /broke|issues|don't like/i.test(data)) return { content: 'Negative review' };
        if (/product|use it/i.test(data)) return { content: 'product_related' };
        if (/微信/.test(data)) return { content: 'wechat' };
        return { content: 'casual' };
      });
    });
    afterAll(async () => Promise.all([h?.close(), web?.stop()]));

    async function create(file: string): Promise<string> {
      const exported = load(file);
      const body = 'dsl' in exported ? { ...exported, title: `${file} ${Date.now()}` } : { title: `${file} ${Date.now()}`, dsl: exported };
      const res = await api(h, 'POST', '/api/v1/agents', { body });
      expect((res.body as { code: number }).code, JSON.stringify(res.body).slice(0, 400)).toBe(0);
      return (res.body as { data: { id: string } }).data.id;
    }

    async function turn(agentId: string, body: Record<string, unknown>) {
      const res = await api(h, 'POST', '/api/v1/agents/chat/completions', { body: { agent_id: agentId, stream: true, ...body } });
      const events = parseSse(res.text)
        .filter((m) => m.json)
        .map((m) => m.json!);
      const text = events
        .filter((e) => e.event === 'message')
        .map((e) => (e.data as { content: string }).content)
        .join('');
      return { events, text, names: events.map((e) => String(e.event)), sessionId: String(events[0]?.session_id ?? '') };
    }

    it('examples/categorize_and_agent_with_tavily.json: routes to the agent and streams its answer', async () => {
      h.llm.whenPromptIncludes('You are a smart researcher', { content: 'Press the power button for two seconds.' });
      const id = await create('examples/categorize_and_agent_with_tavily.json');
      const t = await turn(id, { query: 'How do I use the product?' });
      expect(t.names.at(-1)).toBe('workflow_finished');
      expect(t.text).toBe('Press the power button for two seconds.');
    });

    it('templates/customer_feedback_dispatcher.json: a task-mode review goes through two Categorize and an aggregator', async () => {
      const id = await create('templates/customer_feedback_dispatcher.json');
      const t = await turn(id, { query: 'The product easily broke down, I have issues.' });
      expect(t.names.at(-1)).toBe('workflow_finished');
      expect(t.text).toContain("Customer's original review: The product easily broke down, I have issues.");
      expect(t.text).toContain('After-sales issues');
    });

    it('examples/headhunter_zh.json: v0.x Answer turns greet, then continue the conversation turn after turn', async () => {
      h.llm.whenPromptIncludes('现在候选人的聊了和职位无关的话题', { content: '哈哈，您好！方便加个微信吗？' });
      h.llm.whenPromptIncludes('候选人表示不反感加微信', { content: '谢谢，我马上加您。' });
      const id = await create('examples/headhunter_zh.json');
      const session = await api(h, 'POST', `/api/v1/agents/${id}/sessions`, { body: { name: 'hunt' } });
      const s = session.body as { code: number; data: { id: string; message: Array<{ content: string }> } };
      expect(s.code).toBe(0);
      expect(s.data.message[0]!.content).toContain('您好！我是AGI方向的猎头');
      const first = await turn(id, { session_id: s.data.id, query: '你好' });
      expect(first.names.at(-1)).toBe('workflow_finished');
      expect(first.text).toBe('哈哈，您好！方便加个微信吗？');
      const second = await turn(id, { session_id: s.data.id, query: '好的，我的微信是 abc123' });
      expect(second.text).toBe('谢谢，我马上加您。');
      const categorizeRuns = second.events.filter((e) => e.event === 'node_finished' && (e.data as { component_id: string }).component_id === 'categorize:1');
      expect(categorizeRuns).toHaveLength(1);
    });

    it('templates/deep_research.json: a lead agent runs three sub-agents that search and read the web', async () => {
      const tc = (id: string, name: string, args: unknown) => ({ toolCalls: [{ id, name, arguments: JSON.stringify(args) }] });
      const order = (user_prompt: string) => ({ user_prompt, reasoning: 'the plan needs it', context: 'a report on durable execution' });
      const rounds = (call: RecordedCall) => call.body.messages.filter((m) => m.role === 'tool').length;
      const system = (call: RecordedCall) => String(call.body.messages[0]?.content ?? '');
      h.llm.when((call) => {
        const s = system(call);
        if (s.includes('You are a Web Search Specialist'))
          return rounds(call) === 0 ? tc('ws', 'tavily_search_0', { query: 'durable execution engines' }) : { content: 'URLs: https://example.test/a' };
        if (s.includes('You are a Content Deep Reader'))
          return rounds(call) === 0 ? tc('rd', 'tavily_extract_0', { urls: ['https://example.test/a'] }) : { content: 'Extracted: engines replay history.' };
        if (s.includes('You are a Research Synthesizer')) return { content: 'REPORT: durable execution replays history.' };
        if (!s.includes('Strategy Research Director')) return undefined;
        return (
          [
            tc('l1', 'Web_Search_Specialist_0', order('find sources')),
            tc('l2', 'Content_Deep_Reader_1', order('read https://example.test/a')),
            tc('l3', 'Research_Synthesizer_2', order('write the report')),
          ][rounds(call)] ?? { content: 'Final: durable execution replays history.' }
        );
      });
      const before = web.calls.length;
      const id = await create('templates/deep_research.json');
      const t = await turn(id, { query: 'Research durable execution engines' });
      expect(t.names.at(-1)).toBe('workflow_finished');
      expect(t.text).toBe('Final: durable execution replays history.');
      expect(web.calls.slice(before).map((c) => c.path)).toEqual(['/search', '/extract']);
      const uses = t.events.filter((e) => e.event === 'tool_call').map((e) => (e.data as { tool_name: string }).tool_name);
      expect(uses).toEqual(['Web Search Specialist', 'Content Deep Reader', 'Research Synthesizer']);
    });

    it('examples/tavily_and_generate.json: searches the web for the question and answers from the results, cited in the reference', async () => {
      h.llm.when((call) => {
        const s = String(call.body.messages[0]?.content ?? '');
        if (!s.includes('Here is the knowledge base:')) return undefined;
        // The search results reach the prompt as RAGFlow's kb_prompt blocks.
        return s.includes('temporal retries — source 1') ? { content: 'Temporal retries failed activities.' } : { content: 'no results in the prompt' };
      });
      const before = web.calls.length;
      const id = await create('examples/tavily_and_generate.json');
      const t = await turn(id, { query: 'temporal retries' });
      expect(t.names.at(-1)).toBe('workflow_finished');
      expect(web.calls.slice(before).map((c) => [c.path, c.body.query])).toEqual([['/search', 'temporal retries']]);
      expect(t.text).toBe('Temporal retries failed activities.');
      const end = t.events.find((e) => e.event === 'message_end')!.data as { reference: { chunks: Record<string, { url?: string }> } };
      expect(Object.values(end.reference.chunks).map((c) => c.url)).toContain('https://example.test/temporal%20retries/1');
    });

    it('examples/exesql.json: v0.x ExeSQL fails cleanly, naming its unreachable database host', async () => {
      const id = await create('examples/exesql.json');
      const session = (await api(h, 'POST', `/api/v1/agents/${id}/sessions`, { body: { name: 'sql' } })).body as { data: { id: string } };
      const t = await turn(id, { session_id: session.data.id, query: 'SELECT 1' });
      // The canvas names a docker-compose host ("mysql"), which resolves nowhere here: the node
      // reports it, the password never appears, and the run ends failed rather than hanging.
      const node = t.events.find((e) => e.event === 'node_finished' && (e.data as { component_id: string }).component_id === 'exesql:0')!.data as {
        inputs: unknown;
        error: string;
      };
      expect(node.inputs).toEqual({ sql: 'SELECT 1' });
      expect(node.error).toBe('ExeSQL: mysql does not resolve (ENOTFOUND)');
      expect(t.names.at(-1)).toBe('run_failed');
      expect(JSON.stringify(t.events)).not.toContain('infini_rag_flow');
    });

    it('examples/iteration.json: splits a topic into sub-topics, searches and writes about each, and shows every report', async () => {
      const system = (call: RecordedCall) => String(call.body.messages[0]?.content ?? '');
      h.llm.when((call) => {
        const s = system(call);
        if (s.includes('decompose user') && s.includes('durable workflows')) return { content: '["retries", "replay"]' };
        const topic = /answer the following question or topic: "(retries|replay) "/.exec(s);
        if (topic) return { content: `Report on ${topic[1]}.` };
        return undefined;
      });
      const before = web.calls.length;
      const id = await create('examples/iteration.json');
      const t = await turn(id, { query: 'durable workflows' });
      expect(t.names.at(-1)).toBe('workflow_finished');
      expect(web.calls.slice(before).map((c) => c.body.query)).toEqual(['retries', 'replay']);
      expect(t.text).toBe('["Report on retries.", "Report on replay."]');
    });
  });
});
