import { describe, expect, it } from 'vitest';
import type { ToolInvokeRequest } from '../components/callContracts';
import { compile } from '../../../test/helpers/canvasKit';
import { driver } from '../../../test/helpers/engineDriver';

const found = {
  value: {
    text: 'ID: 7\n└── Content:\nhello',
    outputs: { formalized_content: 'ID: 7\n└── Content:\nhello', json: [] },
    reference: { chunks: { '7': { id: 'c1', content: 'hello' } }, doc_aggs: { 'a.txt': { doc_name: 'a.txt' } } },
    elapsedMs: 3,
  },
};

describe('Retrieval', () => {
  it('searches the datasets its references name, in the run', async () => {
    const canvas = compile({
      begin: { name: 'Begin', params: { inputs: { kb: { type: 'line' } } }, downstream: ['Retrieval:r'] },
      'Retrieval:r': { name: 'Retrieval', params: { dataset_ids: ['fixed-id', '{begin@kb}'], query: 'sys.query' }, downstream: ['LLM:a'] },
      'LLM:a': { name: 'LLM', params: { llm_id: 'm', sys_prompt: 'Use {Retrieval:r@formalized_content}' }, downstream: ['Message:m'] },
      'Message:m': { name: 'Message', params: { content: ['{LLM:a@content}'] } },
    });
    const d = driver({ 'Retrieval:r:toolInvoke': [found], 'LLM:a': ['Hello [ID:7].'] });
    const { state, events } = await d.run(canvas, { query: 'greeting', inputs: { kb: 'Manuals' } });
    const search = d.calls[0]!.call.request as ToolInvokeRequest;
    expect(search.args).toMatchObject({ query: 'greeting', datasets: ['fixed-id', 'Manuals'] });
    // The model is asked to cite, and the reference reaches message_end.
    const system = JSON.stringify(d.calls[1]!.call.request);
    expect(system).toContain('# Citing sources');
    expect(events.find((e) => e.event === 'message_end')!.data).toMatchObject({ reference: { chunks: { '7': { id: 'c1' } } } });
    expect(state.outputs['Message:m']!.content).toBe('Hello [ID:7].');
  });

  it('translates the question first when cross_languages are set, and searches all of them', async () => {
    const canvas = compile({
      begin: { name: 'Begin', downstream: ['Retrieval:r'] },
      'Retrieval:r': { name: 'Retrieval', params: { dataset_ids: ['kb'], cross_languages: ['French', 'German'] } },
    });
    const d = driver({ 'Retrieval:r': ['bonjour\nhallo'], 'Retrieval:r:toolInvoke': [found] });
    const { state } = await d.run(canvas, { query: 'hello' });
    expect(d.calls.map((c) => c.call.activity)).toEqual(['llmChat', 'toolInvoke']);
    expect((d.calls[1]!.call.request as ToolInvokeRequest).args.query).toBe('hello\nbonjour\nhallo');
    expect(state.status).toBe('finished');
  });

  it('does not ask for citations without cite, nor without retrieved chunks', async () => {
    const canvas = compile({
      begin: { name: 'Begin', downstream: ['LLM:a'] },
      'LLM:a': { name: 'LLM', params: { llm_id: 'm', sys_prompt: 'Plain.' } },
    });
    const d = driver({ 'LLM:a': ['x'] });
    await d.run(canvas);
    expect(JSON.stringify(d.calls[0]!.call.request)).not.toContain('# Citing sources');
  });
});
