/**
 * The shape of a compiled canvas, apart from compile.ts so the checks compile.ts runs (cycles.ts)
 * can name it without importing compile.ts back.
 */
import type { CanvasView, ComponentRole, ExecutionParams } from '../components/definition';
import type { AnyComponentDef } from '../components/registry';
import type { PathSegment } from '../dsl/jsonPath';
import type { CanvasDsl } from '../dsl/schema';

/** A component ready to run. */
export interface CompiledNode {
  readonly id: string;
  /** `component_name`, e.g. `LLM`. */
  readonly type: string;
  readonly def: AnyComponentDef;
  readonly params: ExecutionParams;
  readonly downstream: readonly string[];
  readonly upstream: readonly string[];
  readonly parentId: string | null;
  readonly displayName: string;
  readonly role: ComponentRole;
}

export interface CompiledCanvas {
  readonly dsl: CanvasDsl;
  readonly nodes: Readonly<Record<string, CompiledNode>>;
  /** Model components whose answer streams into a downstream Message (RAGFlow's partials). */
  readonly streaming: ReadonlySet<string>;
  /** Initial values of `env.*` from `variables`. */
  readonly envDefaults: Readonly<Record<string, unknown>>;
  /**
   * Where a component's params sit in the stored canvas, when not at components[id].obj.params:
   * a sub-agent's synthetic canvas points back into its parent's DSL (`_origins` in the DSL).
   */
  readonly origins: Readonly<Record<string, PathSegment[]>>;
  /** Loop (Iteration, Loop) → the item its body starts with (IterationItem, LoopItem). */
  readonly loopStarts: Readonly<Record<string, string>>;
  readonly view: CanvasView;
}
