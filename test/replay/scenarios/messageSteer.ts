/**
 * A message steered into a running Agent (patch message-steer): the steer update arrives while the
 * Agent's first model round runs; the message is filed with a message_steered event and the
 * model is asked again with it.
 */
import { dsl } from '../../helpers/canvasKit';
import { launchRun } from '../../../api/services/runLauncher';
import { steerMessageUpdate } from '../../../workflows/definitions';
import { MODEL as model, type ScenarioSet } from '../scenario';

const steerScenarios: ScenarioSet = ({ llm }) => {
  let open = () => {};
  const held = new Promise<void>((resolve) => (open = resolve));
  llm.whenPromptIncludes('Steered agent.', (call) =>
    JSON.stringify(call.body.messages).includes('Only direct flights') ? { content: 'direct flights only' } : { until: held, then: { content: 'draft' } },
  );
  const tool = { component_name: 'TavilySearch', name: 'Search', params: { api_key: 'k' } };
  return {
    'message-steer': {
      async start(ctx) {
        const canvas = await ctx.save(
          'steered',
          dsl({
            begin: { name: 'Begin', downstream: ['Agent:a'] },
            'Agent:a': { name: 'Agent', params: { ...model, sys_prompt: 'Steered agent.', tools: [tool], max_rounds: 2 }, downstream: ['Message:m'] },
            'Message:m': { name: 'Message', params: { content: ['{Agent:a@content}'] } },
          }),
        );
        const calls = ctx.llm.calls.length;
        const run = await launchRun(ctx.launch, {
          tenantId: ctx.tenantId,
          canvas,
          sessionId: null,
          query: 'find flights',
          inputs: null,
          files: [],
          userId: 'u',
          session: null,
        });
        await ctx.llm.waitForCalls(calls + 1);
        const handle = ctx.client.workflow.getHandle(run.workflowId);
        const steer = { args: [{ id: 's1', text: 'Only direct flights, please.' }] as [{ id: string; text: string }], updateId: 'steer-s1' };
        await handle.executeUpdate(steerMessageUpdate, steer);
        await handle.executeUpdate(steerMessageUpdate, steer); // a retried request: applied once
        open();
        return { workflowId: run.workflowId, runId: run.runId };
      },
    },
  };
};

export default steerScenarios;
