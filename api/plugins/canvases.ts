/**
 * Our canvas routes. `POST /api/v1/canvases/validate` checks a DSL (bare or RAGFlow export form)
 * without saving it: 200 with what it contains, or 400 listing every problem with its JSON path.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { acceptCanvas } from '../canvasInput';
import type { AppDeps } from '../deps';

const Body = z.looseObject({ dsl: z.unknown() });

export async function canvasesPlugin(app: FastifyInstance, _deps: AppDeps): Promise<void> {
  app.post('/api/v1/canvases/validate', { schema: { tags: ['canvases'], summary: 'Validate a canvas DSL without saving it', body: Body } }, async (request) => {
    const { dsl } = request.body as z.infer<typeof Body>;
    const { compiled, meta } = acceptCanvas(dsl);
    const components = Object.values(compiled.nodes).map((n) => ({ id: n.id, component_name: n.type, name: n.displayName, execution: n.def.execution }));
    return { valid: true, title: meta.title ?? null, components, streaming: [...compiled.streaming] };
  });
}
