import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { dsl } from '../../../test/helpers/canvasKit';
import { componentDef } from '../components/registry';
import { readCanvasInput } from '../dsl/input';
import type { CanvasDsl } from '../dsl/schema';
import { redactSecrets, slimForRun } from '../dsl/secrets';
import { compileCanvas, type CompiledCanvas } from './compile';
import { canvasFromPrepared, prepareCanvas, type PreparedCanvas } from './prepared';

const root = path.resolve(__dirname, '../../..');
const ragflow = path.resolve(root, '../shared/ragflow-dsl');

/** Every canvas at hand: the project's examples and, when present beside it, RAGFlow's own. */
function corpus(): Array<[string, unknown]> {
  const dirs = [path.join(root, 'examples'), path.join(ragflow, 'examples'), path.join(ragflow, 'templates')].filter(existsSync);
  return dirs.flatMap((dir) =>
    readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .map((f): [string, unknown] => [path.relative(root, path.join(dir, f)), JSON.parse(readFileSync(path.join(dir, f), 'utf8'))]),
  );
}

/** The run DSL of a canvas, compiled (as the API does before a run). */
function compiledRunCanvas(value: unknown): CompiledCanvas {
  const input = readCanvasInput(value);
  const result = compileCanvas(redactSecrets(slimForRun(input.dsl as Record<string, unknown>)));
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.canvas;
}

/** What the engine reads of a compiled canvas, comparable with toEqual. */
function readable(c: CompiledCanvas) {
  const ids = Object.keys(c.nodes);
  return {
    dsl: c.dsl,
    nodes: Object.fromEntries(Object.entries(c.nodes).map(([id, n]) => [id, { ...n, def: n.def === componentDef(n.type) ? n.type : 'another definition' }])),
    streaming: [...c.streaming].sort(),
    envDefaults: c.envDefaults,
    origins: c.origins,
    loopStarts: c.loopStarts,
    view: {
      prologue: c.view.prologue(),
      children: ids.map((id) => c.view.childrenOf(id)),
      roles: ids.map((id) => c.view.roleOf(id)),
      names: ids.map((id) => c.view.displayName(id)),
    },
  };
}

/** The prepared canvas as it arrives in a workflow: through JSON, as Temporal carries the run's input. */
function travelled(c: CompiledCanvas): { dsl: CanvasDsl; prepared: PreparedCanvas } {
  return JSON.parse(JSON.stringify(prepareCanvas(c))) as { dsl: CanvasDsl; prepared: PreparedCanvas };
}

describe('a canvas prepared by the API', () => {
  it.each(corpus())('rebuilds %s exactly as compiling its DSL does', (_file, value) => {
    const compiled = compiledRunCanvas(value);
    const { dsl: parsed, prepared } = travelled(compiled);
    const rebuilt = canvasFromPrepared(parsed, prepared);
    expect(rebuilt).not.toBeNull();
    expect(readable(rebuilt!)).toEqual(readable(compiled));
  });

  it('compiles its parsed DSL to the same canvas again (a worker that ignores the prepared params)', () => {
    for (const [, value] of corpus()) {
      const compiled = compiledRunCanvas(value);
      const again = compileCanvas(travelled(compiled).dsl);
      expect(again.ok).toBe(true);
      if (again.ok) expect(readable(again.canvas)).toEqual(readable(compiled));
    }
  });

  it('keeps loops, sub-components and defaults filled in by the compiler', () => {
    const canvas = dsl({
      begin: { name: 'Begin', downstream: ['Iteration:it'] },
      'Iteration:it': { name: 'Iteration', params: { items_ref: 'sys.query' }, downstream: ['Message:m'] },
      'IterationItem:start': { name: 'IterationItem', parent_id: 'Iteration:it', downstream: ['LLM:inner'] },
      'LLM:inner': { name: 'LLM', parent_id: 'Iteration:it', params: { llm_id: 'm@OpenAI', sys_prompt: 'item {IterationItem:start@item}' } },
      'Message:m': { name: 'Message', params: { content: ['{Iteration:it@LLM:inner}'] } },
    });
    const result = compileCanvas(canvas);
    if (!result.ok) throw new Error(JSON.stringify(result.problems));
    const { dsl: parsed, prepared } = travelled(result.canvas);
    expect(prepared.loopStarts).toEqual({ 'Iteration:it': 'IterationItem:start' });
    expect(prepared.params['LLM:inner']).toMatchObject({ temperature: expect.any(Number) });
    expect(readable(canvasFromPrepared(parsed, prepared)!)).toEqual(readable(result.canvas));
  });

  it('answers null, for the workflow to compile instead, when a component has no prepared params or no definition here', () => {
    const result = compileCanvas(dsl({ begin: { name: 'Begin', downstream: ['Message:m'] }, 'Message:m': { name: 'Message', params: { content: ['hi'] } } }));
    if (!result.ok) throw new Error('invalid');
    const { dsl: parsed, prepared } = travelled(result.canvas);
    const { ['Message:m']: _dropped, ...fewer } = prepared.params;
    expect(canvasFromPrepared(parsed, { ...prepared, params: fewer })).toBeNull();
    const renamed = structuredClone(parsed);
    renamed.components['Message:m']!.obj.component_name = 'NoSuchComponent';
    expect(canvasFromPrepared(renamed, prepared)).toBeNull();
  });
});
