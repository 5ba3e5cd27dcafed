/** A run its budget stops: the second model call would pass the agent's max_tokens (patch budget-exceeded-fails-run). */
import { dsl } from '../../helpers/canvasKit';
import { MODEL as model, type ScenarioSet } from '../scenario';

const budgetScenarios: ScenarioSet = ({ llm }) => {
  llm.whenPromptIncludes('Spend the budget.', { content: 'spent', usage: { prompt_tokens: 800, completion_tokens: 100 } });
  return {
    'budget-exceeded': {
      canvas: dsl(
        {
          begin: { name: 'Begin', downstream: ['LLM:a'] },
          'LLM:a': { name: 'LLM', params: { ...model, sys_prompt: 'Spend the budget.' }, downstream: ['LLM:b'] },
          'LLM:b': { name: 'LLM', params: { ...model, sys_prompt: `Over budget. ${'More words. '.repeat(60)}` }, downstream: ['Message:m'] },
          'Message:m': { name: 'Message', params: { content: ['{LLM:b@content}'] } },
        },
        { budget: { max_tokens: 1000 } },
      ),
    },
  };
};

export default budgetScenarios;
