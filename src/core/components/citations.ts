/**
 * Citations: when a model answers from retrieved knowledge (a Retrieval node, or search tools an
 * Agent called) and its node has `cite` on, its system prompt asks it to cite the knowledge
 * blocks by their `ID: n` as `[ID:n]` — the same n the run's reference (`message_end.reference`)
 * keys the chunks by, so a client can link every citation to its source.
 */

export const CITATION_GUIDELINES = [
  '',
  '# Citing sources',
  'Knowledge blocks given to you (in this prompt or in tool results) each start with a line "ID: n".',
  '- When a sentence of your answer relies on a block, put its citation right after that sentence: [ID:n], using the number of that block. Several blocks: [ID:3][ID:12].',
  '- Cite only blocks you actually used, at most four per sentence. Do not cite general knowledge, and never make up an ID.',
  '- Do not add a list of sources at the end; the citations in the text are enough.',
].join('\n');

/** The system prompt with the citation guidelines, when they apply. */
export function withCitations(system: string, citing: boolean): string {
  return citing && !system.includes('# Citing sources') ? `${system}\n${CITATION_GUIDELINES}` : system;
}
