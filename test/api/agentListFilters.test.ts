/**
 * GET /api/v1/agents narrowed as RAGFlow's list_agents narrows it (api/apps/restful_apis/agent_api.py):
 * `canvas_category` (comma-separated, any of them) and `canvas_type`, over real HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startHarness, type Harness } from '../helpers/appHarness';
import { createPipeline } from '../pipeline/workflow/pipelineKit';

const AGENT_DSL = {
  components: {
    begin: { obj: { component_name: 'Begin', params: {} }, downstream: ['message'], upstream: [] },
    message: { obj: { component_name: 'Message', params: { content: ['{sys.query}'] } }, downstream: [], upstream: ['begin'] },
  },
};

type Listing = { code: number; data: { canvas: Array<{ id: string; canvas_category: string; canvas_type: string | null }>; total: number } };

let h: Harness;
let agentId: string;
let chatbotId: string;
let pipelineId: string;

beforeAll(async () => {
  h = await startHarness();
  const create = async (body: Record<string, unknown>) => ((await api(h, 'POST', '/api/v1/agents', { body })).body as { data: { id: string } }).data.id;
  agentId = await create({ title: `plain ${Date.now()}`, dsl: AGENT_DSL });
  chatbotId = await create({ title: `chatbot ${Date.now()}`, dsl: AGENT_DSL, canvas_type: 'chatbot' });
  pipelineId = await createPipeline(h, 'title_chunker');
});

afterAll(async () => {
  await h?.close();
});

const list = async (query: string) => (await api(h, 'GET', `/api/v1/agents?page_size=100&${query}`)).body as Listing;
const ids = (l: Listing) => l.data.canvas.map((c) => c.id).sort();

describe('listing agents', () => {
  it('by canvas_category: agents only, pipelines only, or both', async () => {
    const agents = await list('canvas_category=agent_canvas');
    expect(agents.code).toBe(0);
    expect(ids(agents)).toEqual([agentId, chatbotId].sort());
    expect(agents.data.total).toBe(2);
    expect(ids(await list('canvas_category=dataflow_canvas'))).toEqual([pipelineId]);
    expect(ids(await list('canvas_category=agent_canvas,dataflow_canvas'))).toEqual([agentId, chatbotId, pipelineId].sort());
    expect(ids(await list(''))).toEqual([agentId, chatbotId, pipelineId].sort());
  });

  it('by a category nothing has: an empty page, not an error', async () => {
    expect(await list('canvas_category=compilation_template_group')).toMatchObject({ code: 0, data: { canvas: [], total: 0 } });
  });

  it('by canvas_type', async () => {
    expect(ids(await list('canvas_type=chatbot'))).toEqual([chatbotId]);
  });
});
