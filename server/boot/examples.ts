/** The example canvases shipped in `examples/`: loaded for the default tenant and served as templates. */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { readCanvasInput } from '../../src/core/dsl/input';
import { compileCanvas } from '../../src/core/engine';
import type { Store } from '../../src/io/store/contract';

export async function readExamples(projectRoot: string): Promise<Array<Record<string, unknown>>> {
  const dir = path.join(projectRoot, 'examples');
  const files = (await fs.readdir(dir)).filter((f) => f.endsWith('.json')).sort();
  return Promise.all(files.map(async (f) => JSON.parse(await fs.readFile(path.join(dir, f), 'utf8')) as Record<string, unknown>));
}

/** Creates the examples the tenant does not have yet (by title); returns their titles. */
export async function loadExamples(store: Store, tenantId: string, projectRoot: string): Promise<string[]> {
  const loaded: string[] = [];
  for (const example of await readExamples(projectRoot)) {
    const input = readCanvasInput(example);
    const title = input.meta.title ?? 'example';
    if (!compileCanvas(input.dsl).ok || (await store.canvases.findByTitle(tenantId, title))) continue;
    await store.canvases.create({
      tenantId,
      title,
      description: input.meta.description ?? null,
      canvasType: input.meta.canvas_type ?? null,
      canvasCategory: 'agent_canvas',
      dsl: input.dsl as Record<string, unknown>,
    });
    loaded.push(title);
  }
  return loaded;
}
