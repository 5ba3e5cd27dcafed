/**
 * Text helpers for knowledge search, shared by every backend so results have one contract:
 * tokens for keyword similarity (words for alphabetic scripts, characters and character pairs
 * for CJK, which has no spaces), and RAGFlow's hash ids.
 */

const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]/;
const STOPWORDS = new Set([
  'a',
  'an',
  'the',
  'of',
  'to',
  'in',
  'on',
  'and',
  'or',
  'is',
  'are',
  'was',
  'be',
  'for',
  'with',
  'as',
  'at',
  'by',
  'it',
  'this',
  'that',
  'what',
  'how',
  'do',
  'does',
  'i',
  'you',
  'me',
  'my',
]);

/** Lower-cased search terms: words (stop words dropped), CJK characters and their pairs. */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const m of text
    .toLowerCase()
    .normalize('NFKC')
    .matchAll(/[\p{L}\p{N}]+/gu)) {
    const word = m[0];
    if (!CJK.test(word)) {
      if (word.length > 1 && !STOPWORDS.has(word)) out.push(word);
      else if (/\d/.test(word)) out.push(word);
      continue;
    }
    // Mixed runs: alphabetic parts as words, CJK parts as characters and bigrams.
    for (const part of word.split(/([\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+)/u)) {
      if (!part) continue;
      if (!CJK.test(part)) {
        if (part.length > 1) out.push(part);
        continue;
      }
      const chars = [...part];
      chars.forEach((c, i) => {
        out.push(c);
        if (i + 1 < chars.length) out.push(c + chars[i + 1]);
      });
    }
  }
  return out;
}

/**
 * Keyword similarity in [0, 1]: the share of the query's distinct terms the text contains.
 * (RAGFlow weighs terms with its own tokenizer; the scale and the use are the same.)
 */
export function termSimilarity(queryTerms: readonly string[], text: string): number {
  const q = new Set(queryTerms);
  if (q.size === 0) return 0;
  const t = new Set(tokenize(text));
  let hit = 0;
  for (const term of q) if (t.has(term)) hit += 1;
  return hit / q.size;
}

/** Approximate token count (words; CJK characters count one each), for chunk sizes. */
export function countTokens(text: string): number {
  let n = 0;
  for (const m of text.matchAll(/[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu)) n += CJK.test(m[0]) ? [...m[0]].length : 1;
  return n;
}
