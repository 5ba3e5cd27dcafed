/** Components of the later catalog issues whose runs add commands of their own: a speaking Message (patched), DocGenerator's and ExcelProcessor's files, a Browser node. */
import { dsl } from '../../helpers/canvasKit';
import { MODEL as model, type ScenarioSet } from '../scenario';

const catalogScenarios: ScenarioSet = ({ llm }) => {
  // The Browser node's model: open a loopback page (the recorder's worker has no allow-list, so
  // the guard refuses it inside the browserStep activity), then report the refusal.
  llm.whenPromptIncludes('Browse.', (call) => {
    const state = JSON.stringify(call.body.messages.at(-1)?.content ?? '');
    if (state.includes('No page is open yet.')) return { content: JSON.stringify({ action: 'goto', url: 'http://127.0.0.1:9/' }) };
    return { content: JSON.stringify({ action: 'done', content: 'refused' }) };
  });
  llm.whenPromptIncludes('Rows as JSON.', { content: '[{"region": "north", "sales": 12}, {"region": "south", "sales": 7}]' });
  return {
    // auto_play under the message-auto-play patch: a speak activity between the text and message_end (the worker has TTS_MODEL).
    'message-auto-play': {
      canvas: dsl({
        begin: { name: 'Begin', downstream: ['Message:m'] },
        'Message:m': { name: 'Message', params: { content: ['You said: {sys.query}'], auto_play: true } },
      }),
      query: 'hello',
    },
    // A generated PDF stored as a blob (the history holds its reference) and listed by a Message.
    'doc-generator': {
      canvas: dsl({
        begin: { name: 'Begin', downstream: ['LLM:w'] },
        'LLM:w': { name: 'LLM', params: { ...model, sys_prompt: 'Announced.' }, downstream: ['DocGenerator:pdf'] },
        'DocGenerator:pdf': {
          name: 'DocGenerator',
          params: { output_format: 'pdf', content: '# Findings\n\n{LLM:w@content}', filename: 'findings' },
          downstream: ['Message:m'],
        },
        'Message:m': { name: 'Message', params: { content: ['Your file:{DocGenerator:pdf@download}'] } },
      }),
    },
    // A Browser node: model rounds and browserStep activities (Chromium launched, the navigation refused by the guard).
    browser: {
      canvas: dsl({
        begin: { name: 'Begin', downstream: ['Browser:web'] },
        'Browser:web': { name: 'Browser', params: { ...model, sys_prompt: 'Browse.', prompts: '{sys.query}', max_steps: 3 }, downstream: ['Message:m'] },
        'Message:m': { name: 'Message', params: { content: ['{Browser:web@content}'] } },
      }),
      query: 'Open the local page',
    },
    // A spreadsheet written from a model's JSON rows by the fileTool activity (no uploads needed).
    'excel-processor': {
      canvas: dsl({
        begin: { name: 'Begin', downstream: ['LLM:rows'] },
        'LLM:rows': { name: 'LLM', params: { ...model, sys_prompt: 'Rows as JSON.' }, downstream: ['ExcelProcessor:out'] },
        'ExcelProcessor:out': {
          name: 'ExcelProcessor',
          params: { operation: 'output', transform_data: '{LLM:rows@content}', output_format: 'xlsx', output_filename: 'rows' },
          downstream: ['Message:m'],
        },
        'Message:m': { name: 'Message', params: { content: ['{ExcelProcessor:out@summary}'] } },
      }),
    },
  };
};

export default catalogScenarios;
