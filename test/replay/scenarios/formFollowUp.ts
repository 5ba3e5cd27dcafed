/**
 * Paused forms that remind and escalate (patch form-remind-escalate): a reminder goes out
 * (its webhook is on loopback, which the recorder's network guard refuses: the reminder is
 * recorded undelivered, a non-retryable failure) and then the escalation branch; and a form
 * answered after its first reminder.
 */
import { launchRun } from '../../../api/services/runLauncher';
import { submitInputsUpdate } from '../../../workflows/definitions';
import { dsl } from '../../helpers/canvasKit';
import type { ScenarioSet } from '../scenario';

const formCanvas = (hook: string, followUp: Record<string, unknown>) =>
  dsl({
    begin: { name: 'Begin', downstream: ['UserFillUp:f'] },
    'UserFillUp:f': {
      name: 'UserFillUp',
      params: { tips: 'Approve?', inputs: { ok: { type: 'boolean' } }, remind_webhook: hook, ...followUp },
      downstream: ['Message:m'],
    },
    'Message:m': { name: 'Message', params: { content: ['Answered {UserFillUp:f@ok}'] } },
    'Message:up': { name: 'Message', params: { content: ['Escalated.'] } },
  });

const formFollowUpScenarios: ScenarioSet = ({ llm }) => ({
  'form-remind-escalate': {
    canvas: formCanvas(`${llm.url}/reminders`, { remind_after: 1, remind_max: 2, escalate_after: 3, escalate_goto: ['Message:up'] }),
  },
  'form-remind-answered': {
    async start(ctx) {
      const canvas = await ctx.save('reminded then answered', formCanvas(`${llm.url}/reminders`, { remind_after: 1, remind_max: 3 }));
      const run = await launchRun(ctx.launch, {
        tenantId: ctx.tenantId,
        canvas,
        sessionId: null,
        query: 'go',
        inputs: null,
        files: [],
        userId: 'u',
        session: null,
      });
      for (;;) {
        const events = await ctx.store.events.list(run.runId, null, 1000);
        if (events.some((e) => e.event === 'form_reminded')) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      await ctx.client.workflow.getHandle(run.workflowId).executeUpdate(submitInputsUpdate, { args: [{ inputs: { ok: true } }] });
      return { workflowId: run.workflowId };
    },
  },
});

export default formFollowUpScenarios;
