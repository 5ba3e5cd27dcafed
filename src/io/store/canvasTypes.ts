/** Canvases and their versions as the store keeps them (RAGFlow's `user_canvas` and `user_canvas_version`). */
import type { ListOptions } from './dbContract';

export interface CanvasRecord {
  id: string;
  tenant_id: string;
  title: string;
  description: string | null;
  avatar: string | null;
  canvas_type: string | null;
  canvas_category: string;
  /** The normalized DSL as last saved (graph kept intact). */
  dsl: Record<string, unknown>;
  /** The id of the latest version (each save with a DSL makes one). */
  version_id: string;
  create_time: number;
  update_time: number;
  create_date: string;
  update_date: string;
}

export interface CanvasVersionRecord {
  id: string;
  user_canvas_id: string;
  title: string;
  dsl: Record<string, unknown>;
  release: boolean;
  create_time: number;
  update_time: number;
  create_date: string;
  update_date: string;
}

export interface CanvasListFilter extends ListOptions {
  keywords?: string;
  id?: string;
  title?: string;
  /** Any of these categories (RAGFlow's `canvas_category=agent_canvas,dataflow_canvas`). */
  categories?: string[];
  /** RAGFlow's `canvas_type` (a template's kind, e.g. "chatbot"). */
  canvasType?: string;
}

export interface NewCanvas {
  tenantId: string;
  title: string;
  description?: string | null;
  avatar?: string | null;
  canvasType?: string | null;
  canvasCategory?: string;
  dsl: Record<string, unknown>;
}

export interface CanvasPatch {
  title?: string;
  description?: string | null;
  avatar?: string | null;
  canvasType?: string | null;
  /** When present a new version is recorded. */
  dsl?: Record<string, unknown>;
}
