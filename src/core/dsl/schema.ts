/**
 * Zod schemas for the canvas DSL as RAGFlow writes it. They describe structure only; what a
 * component's params mean is each component's business (src/core/components), and cross-references
 * are checked by the engine's compiler. Unknown keys are kept (passthrough) so that editor data
 * such as `graph` round-trips intact.
 */
import { z } from 'zod';
import { lazySchema } from './lazySchema';

export const ComponentObjSchema = lazySchema(() =>
  z.looseObject({
    component_name: z.string().min(1, 'component_name must not be empty'),
    params: z.record(z.string(), z.unknown()).default({}),
  }),
);

export const ComponentNodeSchema = lazySchema(() =>
  z.looseObject({
    obj: ComponentObjSchema,
    downstream: z.array(z.string()).default([]),
    upstream: z.array(z.string()).default([]),
    parent_id: z.string().nullish(),
  }),
);

/** A user variable declared in `variables` (RAGFlow's conversation variables, read as `env.*`). */
export const CanvasVariableSchema = lazySchema(() =>
  z.looseObject({
    name: z.string().optional(),
    type: z.string().optional(),
    value: z.unknown().optional(),
    description: z.string().optional(),
  }),
);

export const CanvasDslSchema = lazySchema(() =>
  z.looseObject({
    components: z.record(z.string(), ComponentNodeSchema),
    globals: z.record(z.string(), z.unknown()).default({}),
    variables: z
      .record(z.string(), CanvasVariableSchema)
      .nullish()
      .transform((v) => v ?? {}),
    history: z.array(z.unknown()).default([]),
    // RAGFlow v0.x stored the path as a list of turns (list of lists); it is run-time state only.
    path: z.array(z.union([z.string(), z.array(z.string())])).default([]),
    retrieval: z.unknown().optional(),
    memory: z.array(z.unknown()).default([]),
    graph: z.unknown().optional(),
    messages: z.array(z.unknown()).optional(),
  }),
);

/** RAGFlow's export/template form: the DSL wrapped with its metadata. */
export const CanvasExportSchema = lazySchema(() =>
  z.looseObject({
    id: z.string().optional(),
    title: z.string().optional(),
    description: z.string().nullish(),
    canvas_type: z.string().nullish(),
    avatar: z.string().nullish(),
    dsl: CanvasDslSchema,
  }),
);

export type ComponentNode = z.infer<typeof ComponentNodeSchema>;
export type CanvasDsl = z.infer<typeof CanvasDslSchema>;
export type CanvasVariable = z.infer<typeof CanvasVariableSchema>;
export type CanvasExport = z.infer<typeof CanvasExportSchema>;

/** The globals every canvas has, whatever its DSL says (RAGFlow's Canvas defaults). */
export const DEFAULT_GLOBALS: Readonly<Record<string, unknown>> = Object.freeze({
  'sys.query': '',
  'sys.user_id': '',
  'sys.conversation_turns': 0,
  'sys.files': [],
  'sys.history': [],
  'sys.date': '',
});

/**
 * True when `value` is RAGFlow's export form (`{title?, dsl: {components}}`): it has no
 * `components` of its own, and a `dsl` or the export's metadata. A broken or missing `dsl` is
 * still the export form, so its problems are reported under `$.dsl`.
 */
export function isExportForm(value: unknown): value is { dsl: unknown } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const has = (key: string) => Object.prototype.hasOwnProperty.call(value, key);
  return !has('components') && ['dsl', 'title', 'canvas_type', 'avatar'].some(has);
}
