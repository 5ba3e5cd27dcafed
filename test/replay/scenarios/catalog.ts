/** Components of the later catalog issues whose runs add commands of their own: a speaking Message (patched), DocGenerator's file. */
import { dsl } from '../../helpers/canvasKit';
import { MODEL as model, type ScenarioSet } from '../scenario';

const catalogScenarios: ScenarioSet = () => ({
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
});

export default catalogScenarios;
