/**
 * Large values (long tool results) are kept in the store and travel through workflow history as
 * a marker; the model activity expands the marker before the model sees the text.
 */

/**
 * Results longer than this are stored aside (characters, about 1,000 tokens). Every model round
 * of an agent carries the whole conversation, so history grows with the square of the rounds;
 * keeping results out keeps a 20-round agent with 4 KB results near 300 KB instead of 1.5 MB.
 */
export const BLOB_THRESHOLD = 4_000;

/** Matches `⟦blob:<id>⟧` markers; group 1 is the id. */
export const BLOB_MARKER = /⟦blob:([A-Za-z0-9_-]+)⟧/g;

export function blobMarker(id: string): string {
  return `⟦blob:${id}⟧`;
}
