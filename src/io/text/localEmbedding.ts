/**
 * The offline embedding: a deterministic hashed bag of terms and character trigrams, L2
 * normalized, so datasets work without any embedding service. It captures lexical closeness,
 * not meaning; an OpenAI-compatible embedding endpoint replaces it when configured.
 */
import { tokenize } from './tokens';

export const LOCAL_EMBEDDING_MODEL = 'local-hash-256';
export const LOCAL_EMBEDDING_DIM = 256;

/** FNV-1a, 32 bit. */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export function localEmbedding(text: string, dim = LOCAL_EMBEDDING_DIM): number[] {
  const v = new Array<number>(dim).fill(0);
  const add = (feature: string, weight: number) => {
    const h = fnv1a(feature);
    // The sign bit spreads collisions around zero instead of piling them up.
    v[h % dim]! += (h & 0x80000000 ? -1 : 1) * weight;
  };
  for (const term of tokenize(text)) {
    add(`w:${term}`, 1);
    if (term.length > 3) for (let i = 0; i + 3 <= term.length; i++) add(`g:${term.slice(i, i + 3)}`, 0.5);
  }
  return normalize(v);
}

export function normalize(v: number[]): number[] {
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  return norm === 0 ? v : v.map((x) => x / norm);
}

/** Cosine similarity of two vectors (unnormalized inputs welcome). */
export function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}
