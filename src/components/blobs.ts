/**
 * Large values (long tool results) are kept in the store and travel through workflow history as
 * a marker; the model activity expands the marker before the model sees the text.
 */

/** Results longer than this are stored aside (characters). */
export const BLOB_THRESHOLD = 16_000;

/** Matches `⟦blob:<id>⟧` markers; group 1 is the id. */
export const BLOB_MARKER = /⟦blob:([A-Za-z0-9_-]+)⟧/g;

export function blobMarker(id: string): string {
  return `⟦blob:${id}⟧`;
}
