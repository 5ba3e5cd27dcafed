/** Canvas runs without agents: branching, retries, cancel, pause, iteration and loop, data components, failure. */
import { dsl } from '../../helpers/canvasKit';
import { DATA_QUERY, dataCanvas } from '../../helpers/dataCanvas';
import { MODEL as model, type ScenarioSet } from '../scenario';

const llmThenMessage = (sysPrompt: string) =>
  dsl({
    begin: { name: 'Begin', downstream: ['LLM:a'] },
    'LLM:a': { name: 'LLM', params: { ...model, sys_prompt: sysPrompt }, downstream: ['Message:m'] },
    'Message:m': { name: 'Message', params: { content: ['{LLM:a@content}'] } },
  });

const canvasScenarios: ScenarioSet = ({ llm }) => {
  llm.whenPromptIncludes('classify user questions', { content: 'refund' });
  llm.whenPromptIncludes('Refunds.', { content: 'Your money is on its way.' });
  let flaky = 0;
  llm.whenPromptIncludes('Flaky.', () => (++flaky === 1 ? { status: 500 } : { content: 'recovered' }));
  llm.whenPromptIncludes('Endless.', { hang: true, content: 'la la ' });
  llm.whenPromptIncludes('Broken.', { status: 400 });
  let wobbly = 0;
  llm.whenPromptIncludes('Wobbly.', () => (++wobbly === 1 ? { status: 500 } : { content: 'steady' }));
  llm.whenPromptIncludes('Then summarize.', { content: 'summed up' });
  llm.whenPromptIncludes('Forever.', { hang: true, content: 'on and on ' });
  return {
    'categorize-stream': {
      canvas: dsl({
        begin: { name: 'Begin', downstream: ['Categorize:c'] },
        'Categorize:c': {
          name: 'Categorize',
          params: {
            ...model,
            category_description: { refund: { description: 'money back', to: ['LLM:r'] }, other: { description: 'else', to: ['Message:o'] } },
          },
          downstream: ['LLM:r', 'Message:o'],
        },
        'LLM:r': { name: 'LLM', params: { ...model, sys_prompt: 'Refunds.' }, downstream: ['Message:r'] },
        'Message:r': { name: 'Message', params: { content: ['{LLM:r@content}'] } },
        'Message:o': { name: 'Message', params: { content: ['other'] } },
      }),
    },
    'retry-then-succeed': {
      canvas: dsl({
        begin: { name: 'Begin', downstream: ['LLM:f'] },
        'LLM:f': { name: 'LLM', params: { ...model, sys_prompt: 'Flaky.', max_retries: 2, delay_after_error: 0.1 }, downstream: ['Switch:s'] },
        'Switch:s': {
          name: 'Switch',
          params: {
            conditions: [{ items: [{ cpn_id: 'LLM:f@content', operator: 'contains', value: 'recover' }], to: ['Message:ok'] }],
            end_cpn_ids: ['Message:ko'],
          },
          downstream: ['Message:ok', 'Message:ko'],
        },
        'Message:ok': { name: 'Message', params: { content: ['ok: {LLM:f@content}'] } },
        'Message:ko': { name: 'Message', params: { content: ['ko'] } },
      }),
    },
    'cancel-mid-stream': {
      canvas: dsl({
        begin: { name: 'Begin', downstream: ['LLM:e'] },
        'LLM:e': { name: 'LLM', params: { ...model, sys_prompt: 'Endless.' }, downstream: ['Message:m'] },
        'Message:m': { name: 'Message', params: { content: ['{LLM:e@content}'] } },
      }),
      cancel: true,
    },
    'user-fill-up': {
      canvas: dsl({
        begin: { name: 'Begin', downstream: ['UserFillUp:f'] },
        'UserFillUp:f': { name: 'UserFillUp', params: { tips: 'Name?', inputs: { name: { type: 'line' } } }, downstream: ['Message:m'] },
        'Message:m': { name: 'Message', params: { content: ['Hello {UserFillUp:f@name}'] } },
      }),
      inputs: { name: 'Ada' },
    },
    // The answer recorded (the task that takes it ends on a 1 ms timer) before its continuation is written (INPUTS_CONFIRMED_PATCH).
    'inputs-confirmed': {
      canvas: dsl({
        begin: { name: 'Begin', downstream: ['UserFillUp:f'] },
        'UserFillUp:f': { name: 'UserFillUp', params: { tips: 'Name?', inputs: { name: { type: 'line' } } }, downstream: ['Message:m'] },
        'Message:m': { name: 'Message', params: { content: ['Hello {UserFillUp:f@name}'] } },
      }),
      inputs: { name: 'Ada' },
    },
    'iteration-and-loop': {
      canvas: dsl({
        begin: { name: 'Begin', downstream: ['Iteration:it'] },
        'Iteration:it': { name: 'Iteration', params: { items_ref: 'sys.query', outputs: { out: { ref: 'LLM:b@content' } } }, downstream: ['Loop:l'] },
        'IterationItem:i': { name: 'IterationItem', parent_id: 'Iteration:it', downstream: ['LLM:b'] },
        'LLM:b': { name: 'LLM', parent_id: 'Iteration:it', params: { ...model, sys_prompt: 'Refunds.' } },
        'Loop:l': {
          name: 'Loop',
          params: { loop_variables: [{ variable: 'n', input_mode: 'constant', type: 'number', value: 0 }], maximum_loop_count: 3 },
          downstream: ['Message:m'],
        },
        'LoopItem:li': { name: 'LoopItem', parent_id: 'Loop:l', downstream: ['VariableAssigner:v'] },
        'VariableAssigner:v': {
          name: 'VariableAssigner',
          parent_id: 'Loop:l',
          params: { variables: [{ variable: 'Loop:l@n', operator: '+=', parameter: 1 }] },
        },
        'Message:m': { name: 'Message', params: { content: ['{Iteration:it@out} n={Loop:l@n}'] } },
      }),
      query: ['a', 'b'],
    },
    // Started by the API, which records workflow_started itself (`announced`): the run's own events begin at 2.
    'announced-start': { canvas: llmThenMessage('Announced.') },
    // The run closed by a local activity inside its last workflow task (FINALIZE_LOCAL_PATCH).
    'finalize-local': { canvas: llmThenMessage('Announced.') },
    // RAGFlow's data components (StringTransform, ListOperations, DataOperations), inline.
    'data-components': { canvas: dataCanvas(), query: DATA_QUERY },
    // A run that fails: the model refuses the request (a 400 is not retried) and the LLM node has no fallback.
    failure: { canvas: llmThenMessage('Broken.') },
    // Step events handed to each model call (EVENTS_WITH_CALL_PATCH), the first call retried once,
    // and the canvas prepared by the API (the input carries parsed params).
    'events-with-call': {
      canvas: dsl({
        begin: { name: 'Begin', downstream: ['LLM:w'] },
        'LLM:w': { name: 'LLM', params: { ...model, sys_prompt: 'Wobbly.', max_retries: 1, delay_after_error: 0.1 }, downstream: ['LLM:s'] },
        'LLM:s': { name: 'LLM', params: { ...model, sys_prompt: 'Then summarize. {LLM:w@content}' }, downstream: ['Message:m'] },
        'Message:m': { name: 'Message', params: { content: ['{LLM:s@content}'] } },
      }),
    },
    // Cancelled while the call that carries its step's events runs: they go out with the run's end too.
    'events-with-call-cancel': { canvas: llmThenMessage('Forever.'), cancel: true },
    // Started at revision 2 (RUN_REVISION): no patch markers, no RunStatus upsert at the first step.
    'revision-2': { canvas: llmThenMessage('Recorded.') },
  };
};

export default canvasScenarios;
