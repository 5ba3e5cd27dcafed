/** A parallel Iteration (`max_concurrency`, PARALLEL_ITERATION_PATCH): items fanned out two at a time, finishing out of order. */
import { dsl } from '../../helpers/canvasKit';
import { MODEL as model, type ScenarioSet } from '../scenario';

const parallelScenarios: ScenarioSet = ({ llm }) => {
  // Item 0 answers last: the collected list still keeps the items' order.
  llm.when((call) => {
    const m = /Tag item (\d+)\./.exec(JSON.stringify(call.body.messages));
    if (!m) return undefined;
    const n = Number(m[1]);
    return { until: new Promise((r) => setTimeout(r, n === 0 ? 300 : 20)), then: { content: `tag-${n}` } };
  });
  return {
    'parallel-iteration': {
      canvas: dsl({
        begin: { name: 'Begin', downstream: ['Iteration:it'] },
        'Iteration:it': {
          name: 'Iteration',
          params: { items_ref: 'sys.query', max_concurrency: 2, outputs: { tags: { ref: 'LLM:tag@content', type: 'Array<string>' } } },
          downstream: ['Message:m'],
        },
        'IterationItem:i': { name: 'IterationItem', parent_id: 'Iteration:it', downstream: ['LLM:tag'] },
        'LLM:tag': { name: 'LLM', parent_id: 'Iteration:it', params: { ...model, sys_prompt: 'Tag item {IterationItem:i@item}.' } },
        'Message:m': { name: 'Message', params: { content: ['{Iteration:it@tags}'] } },
      }),
      query: [0, 1, 2, 3],
    },
  };
};

export default parallelScenarios;
