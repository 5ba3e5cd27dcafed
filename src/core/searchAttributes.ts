/**
 * Custom search attributes the product registers on every Temporal namespace it uses.
 *
 * This module is imported by workflow code that runs inside Temporal's deterministic
 * sandbox, so it must import nothing except `@temporalio/common` (no node builtins).
 */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * Search attribute names mapped to their Temporal type, spelled the way the CLI's
 * `--search-attribute Name=Type` flag expects.
 */
export const SEARCH_ATTRIBUTES = {
  CanvasId: 'Keyword',
  SessionId: 'Keyword',
  TenantId: 'Keyword',
  RunStatus: 'Keyword',
} as const;

/** A name registered in {@link SEARCH_ATTRIBUTES}. */
export type SearchAttributeName = keyof typeof SEARCH_ATTRIBUTES;

/** Typed key for the canvas (agent definition) id a run belongs to. */
export const CANVAS_ID_KEY = defineSearchAttributeKey('CanvasId', SearchAttributeType.KEYWORD);
/** Typed key for the conversation/session id a run belongs to. */
export const SESSION_ID_KEY = defineSearchAttributeKey('SessionId', SearchAttributeType.KEYWORD);
/** Typed key for the tenant that owns a run. */
export const TENANT_ID_KEY = defineSearchAttributeKey('TenantId', SearchAttributeType.KEYWORD);
/** Typed key for the run's status: a `RunStatus` (src/core/engine/state.ts), the same the store and the API report. */
export const RUN_STATUS_KEY = defineSearchAttributeKey('RunStatus', SearchAttributeType.KEYWORD);

/** All typed keys, e.g. for `TestWorkflowEnvironment.createLocal({ server: { searchAttributes } })`. */
export const SEARCH_ATTRIBUTE_KEYS = [CANVAS_ID_KEY, SESSION_ID_KEY, TENANT_ID_KEY, RUN_STATUS_KEY] as const;

/** `--search-attribute` arguments for `temporal server start-dev`. */
export function searchAttributeCliArgs(): string[] {
  return Object.entries(SEARCH_ATTRIBUTES).flatMap(([name, type]) => ['--search-attribute', `${name}=${type}`]);
}
