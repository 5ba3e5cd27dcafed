/**
 * The run view's pure parts in Node (no browser): the graph layout (the DSL's editor positions, or
 * layers from begin with a legacy loop's back edge left out) and the run model rebuilt from events.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

type Pos = Record<string, { x: number; y: number }>;
interface GraphModule {
  layoutCanvas(dsl: unknown): { nodes: Array<{ id: string; kind: string }>; edges: Array<[string, string]>; pos: Pos };
}
interface RunStateModule {
  newRunModel(): { status: string; text: string; pending: unknown };
  applyEvent(model: unknown, e: { event: string; data: Record<string, unknown> }): unknown;
  nodeState(model: unknown, id: string): string;
}

const web = (file: string) => path.resolve(__dirname, '../../web/js', file);
// Plain browser modules, loaded as they are (no types of their own).
const load = async <T>(file: string): Promise<T> => (await import(web(file))) as T;
const example = (name: string) => (JSON.parse(readFileSync(path.resolve(__dirname, '../../examples', name), 'utf8')) as { dsl: Record<string, unknown> }).dsl;

describe('graph layout', () => {
  it('uses the editor’s positions when the DSL has a graph', async () => {
    const { layoutCanvas } = await load<GraphModule>('graph.js');
    const layout = layoutCanvas(example('chat_assistant.json'));
    expect(layout.pos.begin).toMatchObject({ x: 100, y: 200 });
    expect(layout.edges).toEqual([
      ['begin', 'LLM:Assistant'],
      ['LLM:Assistant', 'Message:Reply'],
    ]);
  });

  it('lays out a canvas without a graph in layers from begin, a legacy loop’s back edge drawn but not ranked', async () => {
    const { layoutCanvas } = await load<GraphModule>('graph.js');
    const layout = layoutCanvas(example('legacy_answer_loop.json'));
    const xs = ['begin', 'answer:0', 'generate:0'].map((id) => layout.pos[id]!.x);
    expect(xs[0]).toBeLessThan(xs[1]!);
    expect(xs[1]).toBeLessThan(xs[2]!);
    expect(layout.edges).toContainEqual(['generate:0', 'answer:0']);
  });

  it('places a child of a group (an Iteration’s body) relative to its parent; editor-only nodes (notes, tool panels) are not drawn', async () => {
    const { layoutCanvas } = await load<GraphModule>('graph.js');
    const c = (name: string, downstream: string[] = [], parent_id?: string) => ({
      obj: { component_name: name, params: {} },
      downstream,
      upstream: [],
      parent_id,
    });
    const layout = layoutCanvas({
      components: { begin: c('Begin', ['Iteration:i']), 'Iteration:i': c('Iteration'), 'IterationItem:s': c('IterationItem', [], 'Iteration:i') },
      graph: {
        nodes: [
          { id: 'begin', position: { x: 0, y: 0 } },
          { id: 'Iteration:i', position: { x: 300, y: 100 } },
          { id: 'IterationItem:s', parentId: 'Iteration:i', position: { x: 20, y: 40 } },
          { id: 'Tool:t', position: { x: 0, y: 300 }, data: { name: 'search' } },
          { id: 'Note:n', type: 'noteNode', position: { x: 0, y: 0 } },
        ],
        edges: [],
      },
    });
    expect(layout.pos['IterationItem:s']).toMatchObject({ x: 320, y: 140 });
    expect(layout.nodes.map((n) => `${n.id}:${n.kind}`)).toEqual(['begin:component', 'Iteration:i:component', 'IterationItem:s:component']);
  });
});

describe('run model', () => {
  it('follows node states, streamed text (a retried stream’s tokens dropped), a pause and the end', async () => {
    const { newRunModel, applyEvent, nodeState } = await load<RunStateModule>('runState.js');
    const m = newRunModel();
    const apply = (event: string, data: Record<string, unknown> = {}) => applyEvent(m, { event, data });
    apply('workflow_started');
    expect(nodeState(m, 'begin')).toBe('waiting');
    apply('node_started', { component_id: 'begin', component_type: 'Begin' });
    expect(nodeState(m, 'begin')).toBe('running');
    apply('node_finished', { component_id: 'begin', outputs: {}, error: null });
    apply('node_started', { component_id: 'Message:m', component_type: 'Message' });
    apply('message', { content: 'Hel' });
    apply('message_retry', { component_id: 'LLM:x', discard_chars: 3 });
    apply('message', { content: 'Hello' });
    apply('node_finished', { component_id: 'Message:m', error: null });
    apply('user_inputs', { inputs: { n: { type: 'integer' } }, tips: 'n?' });
    expect(m.status).toBe('paused');
    apply('node_started', { component_id: 'UserFillUp:f', component_type: 'UserFillUp' });
    expect(m).toMatchObject({ status: 'running', pending: null });
    apply('node_finished', { component_id: 'UserFillUp:f', error: 'bad' });
    apply('workflow_finished', { outputs: {}, usage: { total_tokens: 3 } });
    expect(m).toMatchObject({ status: 'finished', text: 'Hello' });
    expect(['begin', 'Message:m', 'UserFillUp:f', 'LLM:never'].map((id) => nodeState(m, id))).toEqual(['done', 'done', 'failed', 'skipped']);
  });

  it('keeps a message steered into the run with each Agent that took it (message_steered)', async () => {
    const { newRunModel, applyEvent } = await load<RunStateModule>('runState.js');
    const m = newRunModel() as unknown as { nodes: Record<string, { steered: Array<{ id: string; content: string }> }> };
    applyEvent(m, { event: 'node_started', data: { component_id: 'Agent:a', component_type: 'Agent' } });
    applyEvent(m, { event: 'message_steered', data: { steer_id: 'req-1', content: 'Only direct flights.', component_ids: ['Agent:a'] } });
    expect(m.nodes['Agent:a']!.steered).toEqual([{ id: 'req-1', content: 'Only direct flights.' }]);
  });
});
