/** Time travel: a run forked from its second model node with an edited prompt (patch time-travel-fork). */
import { forkRun } from '../../../api/services/travel';
import { replayRun } from '../../../api/services/travelReplay';
import { launchRun } from '../../../api/services/runLauncher';
import { dsl } from '../../helpers/canvasKit';
import { MODEL as model, type ScenarioSet } from '../scenario';

const travelScenarios: ScenarioSet = ({ llm }) => {
  llm.whenPromptIncludes('Travel first.', { content: 'first answer' });
  llm.whenPromptIncludes('Travel second.', { content: 'second answer' });
  llm.whenPromptIncludes('Travel edited.', { content: 'edited answer' });
  return {
    'time-travel-fork': {
      async start(ctx) {
        const canvas = await ctx.save(
          'travel',
          dsl({
            begin: { name: 'Begin', downstream: ['LLM:a'] },
            'LLM:a': { name: 'LLM', params: { ...model, sys_prompt: 'Travel first.' }, downstream: ['LLM:b'] },
            'LLM:b': { name: 'LLM', params: { ...model, sys_prompt: 'Travel second. After {LLM:a@content}' }, downstream: ['Message:m'] },
            'Message:m': { name: 'Message', params: { content: ['{LLM:b@content}'] } },
          }),
        );
        const source = await launchRun(ctx.launch, {
          tenantId: ctx.tenantId,
          canvas,
          sessionId: null,
          query: 'go',
          inputs: null,
          files: [],
          userId: 'u',
          session: null,
        });
        await ctx.client.workflow.getHandle(source.workflowId).result();
        const fork = await forkRun(ctx.launch, ctx.tenantId, source.runId, {
          from: 'LLM:b',
          params: { 'LLM:b': { sys_prompt: 'Travel edited. After {LLM:a@content}' } },
        });
        return { workflowId: fork.workflow_id };
      },
    },
    // A fork inside item 2 of a parallel Iteration: item 1 answered with the source's value (patch time-travel-fork-item).
    'time-travel-fork-item': {
      async start(ctx) {
        const canvas = await ctx.save(
          'travel item',
          dsl({
            begin: { name: 'Begin', downstream: ['Iteration:it'] },
            'Iteration:it': {
              name: 'Iteration',
              params: { items_ref: 'sys.query', max_concurrency: 2, outputs: { labels: { ref: 'LLM:label@content', type: 'Array<string>' } } },
              downstream: ['Message:m'],
            },
            'IterationItem:item': { name: 'IterationItem', parent_id: 'Iteration:it', downstream: ['LLM:label'] },
            'LLM:label': { name: 'LLM', parent_id: 'Iteration:it', params: { ...model, sys_prompt: 'Travel first. {IterationItem:item@item}' } },
            'Message:m': { name: 'Message', params: { content: ['{Iteration:it@labels}'] } },
          }),
        );
        const source = await launchRun(ctx.launch, {
          tenantId: ctx.tenantId,
          canvas,
          sessionId: null,
          query: '["one","two","three"]',
          inputs: null,
          files: [],
          userId: 'u',
          session: null,
        });
        await ctx.client.workflow.getHandle(source.workflowId).result();
        const fork = await forkRun(ctx.launch, ctx.tenantId, source.runId, {
          from: 'LLM:label',
          item: 1,
          params: { 'LLM:label': { sys_prompt: 'Travel edited. {IterationItem:item@item}' } },
        });
        return { workflowId: fork.workflow_id };
      },
    },
    // A replay with tools frozen: the Invoke node answered from the source's journal by a local activity (patch time-travel-replay).
    'time-travel-replay': {
      async start(ctx) {
        const canvas = await ctx.save(
          'travel replay',
          dsl({
            begin: { name: 'Begin', downstream: ['Invoke:i'] },
            // No allow-list names this host: the source's call fails, and the replay answers that failure.
            'Invoke:i': { name: 'Invoke', params: { url: 'http://127.0.0.1:9/x', method: 'get' }, downstream: ['LLM:a'] },
            'LLM:a': { name: 'LLM', params: { ...model, sys_prompt: 'Travel first.' }, downstream: ['Message:m'] },
            'Message:m': { name: 'Message', params: { content: ['{LLM:a@content}'] } },
          }),
        );
        const source = await launchRun(ctx.launch, {
          tenantId: ctx.tenantId,
          canvas,
          sessionId: null,
          query: 'go',
          inputs: null,
          files: [],
          userId: 'u',
          session: null,
        });
        await ctx.client.workflow.getHandle(source.workflowId).result();
        const replay = await replayRun(ctx.launch, ctx.tenantId, source.runId, { model_map: { 'm@OpenAI': 'm2@OpenAI' }, tools: 'frozen' });
        return { workflowId: replay.workflow_id };
      },
    },
  };
};

export default travelScenarios;
