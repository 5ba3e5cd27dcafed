/**
 * A run started beyond its tenant's TENANT_MAX_RUNS (input `admission`, no patch): it waits its turn
 * until the tenant's running run ends and wakes it with `admit`, then runs and, at its end, admits
 * whoever waits behind it (nobody).
 */
import { dsl } from '../../helpers/canvasKit';
import { launchRun } from '../../../api/services/runLauncher';
import { MODEL as model, type ScenarioSet } from '../scenario';

const admissionScenarios: ScenarioSet = ({ llm }) => {
  let open = () => {};
  const held = new Promise<void>((resolve) => (open = resolve));
  llm.whenPromptIncludes('Admitted in turn.', (call) =>
    JSON.stringify(call.body.messages).includes('first in') ? { until: held, then: { content: 'first answer' } } : { content: 'second answer' },
  );
  return {
    'tenant-admission': {
      async start(ctx) {
        const canvas = await ctx.save(
          'admitted',
          dsl({
            begin: { name: 'Begin', downstream: ['LLM:a'] },
            'LLM:a': { name: 'LLM', params: { ...model, sys_prompt: 'Admitted in turn.' }, downstream: ['Message:m'] },
            'Message:m': { name: 'Message', params: { content: ['{LLM:a@content}'] } },
          }),
        );
        const launch = { ...ctx.launch, settings: { ...ctx.launch.settings, tenantMaxRuns: 1 } };
        const turn = { tenantId: ctx.tenantId, canvas, sessionId: null, inputs: null, files: [], userId: 'u', session: null };
        const calls = ctx.llm.calls.length;
        await launchRun(launch, { ...turn, query: 'first in' });
        await ctx.llm.waitForCalls(calls + 1);
        const second = await launchRun(launch, { ...turn, query: 'second in' });
        await new Promise((r) => setTimeout(r, 500)); // it waits, its first task recorded
        open();
        return { workflowId: second.workflowId, runId: second.runId };
      },
    },
  };
};

export default admissionScenarios;
