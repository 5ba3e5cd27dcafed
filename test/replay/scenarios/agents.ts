/** Agents: parallel tool calls, a sub-agent as a tool, continue-as-new over many rounds, InvokeCanvas as a child workflow. */
import type { RecordedCall } from '../../helpers/scriptedLlm';
import { dsl } from '../../helpers/canvasKit';
import { MODEL as model, type ScenarioSet } from '../scenario';

const agentScenarios: ScenarioSet = ({ llm, save }) => {
  const toolsDone = (call: RecordedCall) => call.body.messages.filter((m) => m.role === 'tool').length;
  const tc = (id: string, name: string, args: unknown) => ({ id, name, arguments: JSON.stringify(args) });
  llm.whenPromptIncludes('Parallel.', (call) =>
    toolsDone(call) === 0
      ? { toolCalls: [tc('a', 'tavily_search_0', { query: 'x' }), tc('b', 'tavily_extract_1', { urls: ['https://x.test'] })] }
      : { content: 'both done' },
  );
  llm.whenPromptIncludes('Lead.', (call) =>
    toolsDone(call) === 0 ? { toolCalls: [tc('s', 'Helper_0', { user_prompt: 'look it up', reasoning: 'r', context: 'c' })] } : { content: 'lead done' },
  );
  llm.whenPromptIncludes('Helper.', (call) =>
    toolsDone(call) === 0 ? { toolCalls: [tc('h', 'tavily_search_0', { query: 'y' })] } : { content: 'helper done' },
  );
  llm.whenPromptIncludes('Long.', (call) =>
    toolsDone(call) < 6 ? { toolCalls: [tc(`l${toolsDone(call)}`, 'tavily_search_0', { query: 'z' })] } : { content: 'long done' },
  );
  llm.whenPromptIncludes('Translate.', (call) => ({ content: `FR(${String(call.body.messages.at(-1)?.content)})` }));
  const search = { component_name: 'TavilySearch', name: 'Search', params: { api_key: 'k' } };
  const agent = (params: Record<string, unknown>) =>
    dsl({
      begin: { name: 'Begin', downstream: ['Agent:a'] },
      'Agent:a': { name: 'Agent', params: { ...model, ...params }, downstream: ['Message:m'] },
      'Message:m': { name: 'Message', params: { content: ['{Agent:a@content}'] } },
    });
  return {
    'agent-tools': {
      canvas: agent({ sys_prompt: 'Parallel.', tools: [search, { component_name: 'TavilyExtract', name: 'Reader', params: { api_key: 'k' } }] }),
    },
    'sub-agent': {
      canvas: agent({
        sys_prompt: 'Lead.',
        tools: [{ component_name: 'Agent', name: 'Helper', params: { ...model, sys_prompt: 'Helper.', tools: [search] } }],
      }),
    },
    'continue-as-new': { canvas: agent({ sys_prompt: 'Long.', tools: [search], max_rounds: 6 }), settings: { continueAsNewAfterEvents: 30 } },
    // Another canvas of the tenant run as a child workflow (its history: invoke-canvas-child).
    'invoke-canvas': {
      canvas: async () => {
        const translator = await save(
          'translator',
          dsl({
            begin: { name: 'Begin', downstream: ['LLM:t'] },
            'LLM:t': { name: 'LLM', params: { ...model, sys_prompt: 'Translate.' }, downstream: ['Message:m'] },
            'Message:m': { name: 'Message', params: { content: ['{LLM:t@content}'] } },
          }),
        );
        return dsl({
          begin: { name: 'Begin', downstream: ['InvokeCanvas:tr'] },
          'InvokeCanvas:tr': { name: 'InvokeCanvas', params: { canvas_id: translator.id, query: '{sys.query}!' }, downstream: ['Message:out'] },
          'Message:out': { name: 'Message', params: { content: ['{InvokeCanvas:tr@content}'] } },
        });
      },
      query: 'hello',
    },
  };
};

export default agentScenarios;
