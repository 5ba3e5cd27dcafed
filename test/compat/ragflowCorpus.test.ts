/**
 * Compatibility with real RAGFlow canvases (../shared/ragflow-dsl, not copied into the project):
 * every one loads and validates, and those made only of the components this build runs go to
 * workflow_finished over HTTP, on Temporal, with the scripted model.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCanvasInput } from '../../src/dsl/input';
import { compileCanvas } from '../../src/engine';
import { api, parseSse, startHarness, type Harness } from '../helpers/appHarness';

const corpus = path.resolve(__dirname, '../../../shared/ragflow-dsl');
const present = existsSync(corpus);
if (!present) console.warn(`[compat] skipped: ${corpus} is absent (the RAGFlow canvases live beside the project in ../shared)`);

function files(): string[] {
  return ['examples', 'templates'].flatMap((dir) => readdirSync(path.join(corpus, dir)).filter((f) => f.endsWith('.json')).map((f) => `${dir}/${f}`));
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
    beforeAll(async () => {
      h = await startHarness();
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
    afterAll(async () => h?.close());

    async function create(file: string): Promise<string> {
      const exported = load(file);
      const body = 'dsl' in exported ? { ...exported, title: `${file} ${Date.now()}` } : { title: `${file} ${Date.now()}`, dsl: exported };
      const res = await api(h, 'POST', '/api/v1/agents', { body });
      expect((res.body as { code: number }).code, JSON.stringify(res.body).slice(0, 400)).toBe(0);
      return (res.body as { data: { id: string } }).data.id;
    }

    async function turn(agentId: string, body: Record<string, unknown>) {
      const res = await api(h, 'POST', '/api/v1/agents/chat/completions', { body: { agent_id: agentId, stream: true, ...body } });
      const events = parseSse(res.text).filter((m) => m.json).map((m) => m.json!);
      const text = events.filter((e) => e.event === 'message').map((e) => (e.data as { content: string }).content).join('');
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
  });
});
