/**
 * A canvas made of RAGFlow's data components (no model): the query split into names and scores,
 * the list sorted and cut, conversation variables' objects evaluated and updated, and the lot
 * merged by a template into the message. Shared by the workflow test and the replay recorder.
 */
import { dsl } from './canvasKit';

export const DATA_QUERY = 'ann:31,bo:9,cy:45,bo:9';

export const DATA_MESSAGE = "Top: cy:45 (CY:45) | 1.cy:45 2.bo:9 | {'name': 'Ann', 'tags': ['x', 'y'], 'top': 'cy:45'}";

export function dataCanvas(): Record<string, unknown> {
  return dsl(
    {
      begin: { name: 'Begin', downstream: ['StringTransform:split'] },
      'StringTransform:split': {
        name: 'StringTransform',
        params: { method: 'split', split_ref: 'sys.query', delimiters: [','] },
        downstream: ['ListOperations:dedupe'],
      },
      'ListOperations:dedupe': {
        name: 'ListOperations',
        params: { query: 'StringTransform:split@result', operations: 'drop_duplicates' },
        downstream: ['ListOperations:top'],
      },
      'ListOperations:top': {
        name: 'ListOperations',
        params: { query: 'ListOperations:dedupe@result', operations: 'sort', sort_method: 'desc' },
        downstream: ['ListOperations:head'],
      },
      'ListOperations:head': {
        name: 'ListOperations',
        params: { query: 'ListOperations:top@result', operations: 'topN', n: 2 },
        downstream: ['DataOperations:eval'],
      },
      'DataOperations:eval': { name: 'DataOperations', params: { query: ['env.person'], operations: 'literal_eval' }, downstream: ['DataOperations:update'] },
      'DataOperations:update': {
        name: 'DataOperations',
        params: { query: ['DataOperations:eval@result'], operations: 'append_or_update', updates: [{ key: 'top', value: '{ListOperations:head@first}' }] },
        downstream: ['DataOperations:pick'],
      },
      'DataOperations:pick': {
        name: 'DataOperations',
        params: { query: ['DataOperations:update@result'], operations: 'remove_keys', remove_keys: ['secret'] },
        downstream: ['StringTransform:merge'],
      },
      'StringTransform:merge': {
        name: 'StringTransform',
        params: {
          method: 'merge',
          delimiters: [' '],
          script:
            '{% set top = {ListOperations:head@result} %}Top: {ListOperations:head@first} ({{ ListOperations_head_first | upper }}) | {% for s in top.split(" ") %}{{ loop.index }}.{{ s }} {% endfor %}| {DataOperations:pick@result}',
        },
        downstream: ['Message:m'],
      },
      'Message:m': { name: 'Message', params: { content: ['{StringTransform:merge@result}'] } },
    },
    { variables: { person: { name: 'person', type: 'object', value: { name: 'Ann', tags: "['x', 'y']", secret: 's3' } } } },
  );
}
