/**
 * Memory in canvases, end to end over HTTP: a run whose Message names a memory saves the turn
 * (embedded through the embedding endpoint with the memory's model, then the memory's LLM
 * extracts semantic memory from it); a later run's Retrieval with `memory_ids` finds it; a canvas
 * of another tenant naming the same memory finds nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, parseSse, startHarness, type Harness } from '../helpers/appHarness';
import { dsl } from '../helpers/canvasKit';

let h: Harness;
type Envelope<T = Record<string, unknown>> = { code: number; message: unknown; data: T };

beforeAll(async () => {
  h = await startHarness({ scriptedEmbeddings: true });
  h.llm.whenPromptIncludes('Memory Extraction Specialist', {
    content: '```json\n{"semantic": [{"content": "The user keeps bike locker 4417", "valid_at": "", "invalid_at": ""}]}\n```',
  });
}, 120_000);
afterAll(async () => h?.close());

async function runCanvas(title: string, canvas: Record<string, unknown>, query: string, key = h.key, end = 'workflow_finished') {
  const agent = (await api(h, 'POST', '/api/v1/agents', { key, body: { title, dsl: canvas } })).body as Envelope;
  expect(agent.code, JSON.stringify(agent)).toBe(0);
  const res = await api(h, 'POST', '/api/v1/agents/chat/completions', { key, body: { agent_id: agent.data.id, query, stream: true } });
  const events = parseSse(res.text)
    .filter((m) => m.json)
    .map((m) => m.json!);
  expect(events.map((e) => e.event).at(-1), JSON.stringify(events.at(-1))).toBe(end);
  const shown = events
    .filter((e) => e.event === 'message')
    .map((e) => (e.data as { content: string }).content)
    .join('');
  return { agentId: String(agent.data.id), shown, events };
}

const recall = (memoryId: string) =>
  dsl({
    begin: { name: 'Begin', downstream: ['Retrieval:recall'] },
    'Retrieval:recall': {
      name: 'Retrieval',
      params: { query: '{sys.query}', memory_ids: [memoryId], empty_response: 'NOTHING REMEMBERED' },
      downstream: ['Message:m'],
    },
    'Message:m': { name: 'Message', params: { content: ['Recalled: {Retrieval:recall@formalized_content}'] } },
  });

describe('a canvas with memory', () => {
  it('saves the turn from a Message with memory_ids, and a later run’s Retrieval with memory_ids finds it', async () => {
    const memory = (
      await api(h, 'POST', '/api/v1/memories', {
        body: { name: 'Lockers', memory_type: ['raw', 'semantic'], embd_id: 'scripted-embed', llm_id: 'glm-4@ZHIPU-AI' },
      })
    ).body as Envelope;
    const memoryId = String(memory.data.id);

    const save = dsl({
      begin: { name: 'Begin', downstream: ['Message:ack'] },
      'Message:ack': { name: 'Message', params: { content: ['Noted: your bike locker is 4417.'], memory_ids: [memoryId] } },
    });
    const first = await runCanvas('remember lockers', save, 'Please remember my bike locker number 4417');
    expect(first.shown).toBe('Noted: your bike locker is 4417.');

    const listing = (await api(h, 'GET', `/api/v1/memories/${memoryId}`)).body as Envelope<{
      messages: { message_list: Array<{ content: string; agent_id: string; agent_name: string; extract: Array<{ message_type: string; content: string }> }> };
    }>;
    expect(listing.data.messages.message_list).toEqual([
      expect.objectContaining({
        content: 'User Input: Please remember my bike locker number 4417\nAgent Response: Noted: your bike locker is 4417.',
        agent_id: first.agentId,
        agent_name: 'remember lockers',
        extract: [expect.objectContaining({ message_type: 'semantic', content: 'The user keeps bike locker 4417' })],
      }),
    ]);
    // Embedded through the embedding endpoint with the memory's model.
    expect(h.llm.embeddingCalls).toContainEqual({
      model: 'scripted-embed',
      input: ['User Input: Please remember my bike locker number 4417\nAgent Response: Noted: your bike locker is 4417.'],
    });

    const second = await runCanvas('recall lockers', recall(memoryId), 'bike locker number');
    expect(second.shown).toContain('Agent Response: Noted: your bike locker is 4417.');
    expect(second.shown).toContain('The user keeps bike locker 4417');

    // Another tenant's canvas naming the same memory: the memory is not found for it (RAGFlow's error).
    const foreign = await runCanvas('recall lockers elsewhere', recall(memoryId), 'bike locker number', h.otherKey, 'run_failed');
    expect(foreign.shown).not.toContain('4417');
    expect(JSON.stringify(foreign.events)).toContain('No memory is selected.');
  });
});
