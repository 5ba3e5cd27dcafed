import { describe, expect, it } from 'vitest';
import { compile } from '../../../test/helpers/canvasKit';
import { resumeRun, startRun } from './run';

const canvas = () =>
  compile({ begin: { name: 'Begin', downstream: ['LLM:a'] }, 'LLM:a': { name: 'LLM', params: { llm_id: 'm@OpenAI', sys_prompt: 'be brief' } } });

function runWithUsage(usage: Record<string, unknown>) {
  const c = canvas();
  const started = startRun(c, { runId: 'r', messageId: 'm', query: 'q' }, 1000);
  return resumeRun(c, started.state, [{ callId: started.calls[0]!.callId, ok: true, value: { content: 'a', usage } }], 2000);
}

describe('token usage', () => {
  it('marks the node and run usage estimated when the model call reported an estimate', () => {
    const done = runWithUsage({ prompt_tokens: 3, completion_tokens: 1, total_tokens: 4, estimated: true });
    expect(done.state.usage).toMatchObject({ total_tokens: 4, calls: 1, estimated: true });
    expect(done.state.nodes['LLM:a']!.usage).toMatchObject({ total_tokens: 4, estimated: true });
  });

  it('leaves usage the provider measured unmarked', () => {
    const done = runWithUsage({ prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 });
    expect(done.state.usage).toEqual({ prompt_tokens: 3, completion_tokens: 1, total_tokens: 4, calls: 1 });
  });
});
