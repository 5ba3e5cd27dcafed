/**
 * What RAGFlow's contract tests share: its smallest canvas (Begin → Message echoing the
 * query) and agents and sessions made through the API, each agent deleted when the file ends.
 */
import { expect } from 'vitest';
import { api, type Harness } from '../../helpers/appHarness';

export const MINIMAL_DSL = {
  components: {
    begin: { obj: { component_name: 'Begin', params: {} }, downstream: ['message'], upstream: [] },
    message: { obj: { component_name: 'Message', params: { content: ['{sys.query}'] } }, downstream: [], upstream: ['begin'] },
  },
  history: [],
  retrieval: [],
  path: [],
  globals: { 'sys.query': '', 'sys.user_id': '', 'sys.conversation_turns': 0, 'sys.files': [] },
  variables: {},
};

export type Envelope = { code: number; message?: string; data?: unknown };

/** Agents and sessions created through the harness `harness()` answers; `cleanup()` deletes the agents (and any `adopt`ed). */
export function agentMaker(harness: () => Harness) {
  const created: string[] = [];
  return {
    async createAgent(title: string): Promise<string> {
      const res = await api(harness(), 'POST', '/api/v1/agents', { body: { title, dsl: MINIMAL_DSL } });
      expect(res.status).toBe(200);
      const payload = res.body as Envelope & { data: { id: string } };
      expect(payload.code, JSON.stringify(payload)).toBe(0);
      created.push(payload.data.id);
      return payload.data.id;
    },
    async createSession(agentId: string, name: string): Promise<string> {
      const res = await api(harness(), 'POST', `/api/v1/agents/${agentId}/sessions`, { body: { name } });
      const payload = res.body as Envelope & { data: { id: string } };
      expect(payload.code, JSON.stringify(payload)).toBe(0);
      return payload.data.id;
    },
    /** An agent made another way, to be deleted with the rest. */
    adopt(agentId: string): void {
      created.push(agentId);
    },
    async cleanup(): Promise<void> {
      for (const id of created) await api(harness(), 'DELETE', `/api/v1/agents/${id}`);
    },
  };
}
