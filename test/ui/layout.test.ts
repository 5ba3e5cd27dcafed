/**
 * The run view's graph layout, pure (the browser modules loaded in Node): the layered layout
 * (layers by longest path, long edges through dummies, crossings reduced, fans centred), when the
 * editor's positions are kept, groups framing their bodies, an Agent's tools under it, edges
 * routed around boxes, and a tool's state from the run's tool calls.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}
type Point = { x: number; y: number };
interface LayoutModule {
  layered(
    nodes: Array<{ id: string; w: number; h: number }>,
    edges: Array<[string, string]>,
  ): { pos: Record<string, Box>; routes: Record<string, Point[]>; back: Set<string> };
  longestPathLayers(ids: string[], edges: Array<[string, string]>): { layer: Map<string, number> };
  placeInOrder(want: number[], sep: number[]): number[];
}
interface CanvasLayoutModule {
  overlaps(a: Box, b: Box): boolean;
  segmentHitsBox(p: Point, q: Point, b: Box): boolean;
  routeAround(from: Box, to: Box, obstacles: Box[]): Point[];
}
interface Canvas {
  nodes: Array<{ id: string; parent: string | null }>;
  tools: Array<{ id: string; owner: string; name: string; index: number; pos: Box }>;
  edges: Array<[string, string]>;
  pos: Record<string, Box>;
  routes: Record<string, Point[]>;
  layout: 'editor' | 'layered';
  reason: string | null;
}
interface GraphModule {
  layoutCanvas(dsl: unknown): Canvas;
}
interface ZoomModule {
  defaultZoom(bounds: { w: number; h: number }, width: number, height: number): number;
  READABLE_ZOOM: number;
}
interface RunStateModule {
  newRunModel(): object;
  applyEvent(model: object, e: { event: string; data: Record<string, unknown> }): unknown;
  toolState(model: object, agentId: string, tool: { name: string; index: number }): string;
  toolWarning(model: object, id: string): string | null;
}

const load = async <T>(file: string): Promise<T> => (await import(path.resolve(__dirname, '../../web/js', file))) as T;
const example = (name: string) => (JSON.parse(readFileSync(path.resolve(__dirname, '../../examples', name), 'utf8')) as { dsl: Record<string, unknown> }).dsl;
const centreY = (b: Box) => b.y + b.h / 2;
const key = (a: string, b: string) => `${a}\u0000${b}`;
const box = (id: string) => ({ id, w: 180, h: 52 });
const c = (name: string, downstream: string[] = [], extra: Record<string, unknown> = {}) => ({
  obj: { component_name: name, params: extra.params ?? {} },
  downstream,
  upstream: [],
  ...(extra.parent_id ? { parent_id: extra.parent_id } : {}),
});

function expectNoOverlaps(boxes: Box[], overlaps: CanvasLayoutModule['overlaps']): void {
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) expect(overlaps(boxes[i]!, boxes[j]!), `${i} / ${j}`).toBe(false);
}

describe('layered layout', () => {
  it('ranks each node by its longest path from a root, a loop’s back edge left out', async () => {
    const { longestPathLayers } = await load<LayoutModule>('layout.js');
    const { layer } = longestPathLayers(
      ['begin', 'a', 'b', 'c'],
      [
        ['begin', 'a'],
        ['a', 'b'],
        ['b', 'c'],
        ['begin', 'c'],
        ['c', 'a'],
      ],
    );
    expect(Object.fromEntries(layer)).toEqual({ begin: 0, a: 1, b: 2, c: 3 });
  });

  it('routes an edge that skips a layer through a dummy, beside the box it skips, not behind it', async () => {
    const { layered } = await load<LayoutModule>('layout.js');
    const { segmentHitsBox } = await load<CanvasLayoutModule>('canvasLayout.js');
    const { pos, routes } = layered(['a', 'b', 'c'].map(box), [
      ['a', 'b'],
      ['b', 'c'],
      ['a', 'c'],
    ]);
    const route = routes[key('a', 'c')]!;
    expect(route).toHaveLength(4);
    for (let i = 1; i < route.length; i++) expect(segmentHitsBox(route[i - 1]!, route[i]!, pos.b!)).toBe(false);
  });

  it('orders a layer by its neighbours’ positions so edges do not cross', async () => {
    const { layered } = await load<LayoutModule>('layout.js');
    // Listed in the order that crosses: x's source is above y's.
    const { pos } = layered(['a', 'b', 'y', 'x'].map(box), [
      ['a', 'x'],
      ['b', 'y'],
    ]);
    expect(pos.a!.y).toBeLessThan(pos.b!.y);
    expect(pos.x!.y).toBeLessThan(pos.y!.y);
  });

  it('centres a node on its branches and keeps chains straight, boxes at least a gap apart', async () => {
    const { placeInOrder } = await load<LayoutModule>('layout.js');
    expect(placeInOrder([50, 50, 50], [0, 80, 80])).toEqual([-30, 50, 130]);
    expect(placeInOrder([0, 500], [0, 80])).toEqual([0, 500]);
  });
});

describe('canvas layout', () => {
  it('draws the bundled Support router with three branches: no boxes overlap, the Categorize’s targets in distinct rows', async () => {
    const { layoutCanvas } = await load<GraphModule>('graph.js');
    const { overlaps } = await load<CanvasLayoutModule>('canvasLayout.js');
    const l = layoutCanvas(example('support_router.json'));
    expect(l.layout).toBe('layered');
    expect(l.reason).toMatch(/branches of Categorize:Route .* collinear/);
    expectNoOverlaps(Object.values(l.pos), overlaps);
    const targets = l.edges.filter(([a]) => a === 'Categorize:Route').map(([, b]) => l.pos[b]!);
    expect(targets).toHaveLength(3);
    expect(new Set(targets.map(centreY)).size).toBe(3);
    // The router sits level with its middle branch; each branch's chain is straight.
    expect(centreY(l.pos['Categorize:Route']!)).toBe(centreY(targets[1]!));
    expect(centreY(l.pos['LLM:Billing']!)).toBe(centreY(l.pos['Message:Billing']!));
  });

  it('keeps the editor’s positions when they are sane, not when boxes overlap', async () => {
    const { layoutCanvas } = await load<GraphModule>('graph.js');
    const kept = layoutCanvas(example('chat_assistant.json'));
    expect(kept.layout).toBe('editor');
    expect(kept.pos.begin).toMatchObject({ x: 100, y: 200 });
    const stacked = layoutCanvas({
      components: { begin: c('Begin', ['Message:m']), 'Message:m': c('Message') },
      graph: {
        nodes: [
          { id: 'begin', position: { x: 0, y: 0 } },
          { id: 'Message:m', position: { x: 90, y: 10 } },
        ],
        edges: [],
      },
    });
    expect(stacked).toMatchObject({ layout: 'layered', reason: 'begin and Message:m overlap' });
  });

  it('detours an edge whose straight line would pass behind another box', async () => {
    const { routeAround, segmentHitsBox } = await load<CanvasLayoutModule>('canvasLayout.js');
    const [from, mid, to] = [0, 250, 500].map((x) => ({ x, y: 0, w: 180, h: 52 }));
    const route = routeAround(from!, to!, [mid!]);
    expect(route).toHaveLength(4);
    for (let i = 1; i < route.length; i++) expect(segmentHitsBox(route[i - 1]!, route[i]!, mid!)).toBe(false);
    expect(routeAround(from!, to!, [])).toHaveLength(2);
  });

  it('frames an Iteration’s body around its children, nothing else inside the frame', async () => {
    const { layoutCanvas } = await load<GraphModule>('graph.js');
    const { overlaps } = await load<CanvasLayoutModule>('canvasLayout.js');
    const l = layoutCanvas({
      components: {
        begin: c('Begin', ['Iteration:i']),
        'Iteration:i': c('Iteration', ['Message:after']),
        'IterationItem:s': c('IterationItem', ['LLM:each'], { parent_id: 'Iteration:i' }),
        'LLM:each': c('LLM', [], { parent_id: 'Iteration:i' }),
        'Message:after': c('Message'),
      },
    });
    const frame = l.pos['Iteration:i']!;
    const inside = (b: Box) => b.x >= frame.x && b.y >= frame.y && b.x + b.w <= frame.x + frame.w && b.y + b.h <= frame.y + frame.h;
    expect(inside(l.pos['IterationItem:s']!) && inside(l.pos['LLM:each']!)).toBe(true);
    expect(l.pos['IterationItem:s']!.x).toBeLessThan(l.pos['LLM:each']!.x);
    for (const outside of ['begin', 'Message:after']) expect(overlaps(frame, l.pos[outside]!)).toBe(false);
  });

  it('draws a DSL whose parents form a cycle as plain nodes instead of losing them', async () => {
    const { layoutCanvas } = await load<GraphModule>('graph.js');
    const l = layoutCanvas({ components: { a: c('LLM', [], { parent_id: 'b' }), b: c('LLM', [], { parent_id: 'a' }) } });
    expect(l.nodes.map((n) => n.parent)).toEqual([null, null]);
    expect(Object.keys(l.pos).sort()).toEqual(['a', 'b']);
  });

  it('draws an Agent’s tools as small nodes under it, inside its block', async () => {
    const { layoutCanvas } = await load<GraphModule>('graph.js');
    const l = layoutCanvas({
      components: {
        begin: c('Begin', ['Agent:a']),
        'Agent:a': c('Agent', [], {
          params: {
            tools: [
              { component_name: 'TavilySearch', name: 'search' },
              { component_name: 'Agent', name: 'Researcher' },
            ],
          },
        }),
      },
    });
    expect(l.tools.map((t) => [t.id, t.name, t.index])).toEqual([
      ['Agent:a::tool:0', 'search', 0],
      ['Agent:a::tool:1', 'Researcher', 1],
    ]);
    const agent = l.pos['Agent:a']!;
    for (const t of l.tools) {
      expect(t.pos.y).toBeGreaterThan(agent.y + 52);
      expect(t.pos.y + t.pos.h).toBeLessThanOrEqual(agent.y + agent.h);
    }
  });
});

describe('first view', () => {
  it('fits the graph to its box but never shrinks 12 px text below 11 px, nor blows a small graph up past 1.25', async () => {
    const { defaultZoom, READABLE_ZOOM } = await load<ZoomModule>('zoomPan.js');
    expect(READABLE_ZOOM * 12).toBeCloseTo(11, 5);
    expect(defaultZoom({ w: 2000, h: 300 }, 800, 400)).toBe(READABLE_ZOOM);
    expect(defaultZoom({ w: 850, h: 300 }, 800, 400)).toBeCloseTo(800 / 850, 5);
    expect(defaultZoom({ w: 200, h: 100 }, 800, 400)).toBe(1.25);
  });
});

describe('tool state', () => {
  it('marks an Agent whose every tool call failed, and each tool by its own calls', async () => {
    const { newRunModel, applyEvent, toolState, toolWarning } = await load<RunStateModule>('runState.js');
    const m = newRunModel();
    const call = (fn: string, name: string, error: string | null) =>
      applyEvent(m, { event: 'tool_call', data: { component_id: 'Agent:a', round: 1, tool_name: name, function: fn, error } });
    call('search_0', 'search', 'HTTP 500');
    expect(toolWarning(m, 'Agent:a')).toBe('all');
    call('researcher_1', 'Researcher', null);
    expect(toolWarning(m, 'Agent:a')).toBe('some');
    expect(toolState(m, 'Agent:a', { name: 'search', index: 0 })).toBe('failed');
    expect(toolState(m, 'Agent:a', { name: 'Researcher', index: 1 })).toBe('done');
    expect(toolState(m, 'Agent:a', { name: 'search', index: 2 })).toBe('waiting');
    expect(toolWarning(m, 'Agent:b')).toBeNull();
  });
});
