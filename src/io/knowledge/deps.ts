/** What Retrieval and indexing need, built once from the settings: shared by the API and the activities. */
import type { Store } from '../store/contract';
import { storeIndex, type ChunkIndex } from './chunkIndex';
import { embeddingSettingsFromEnv } from './embedder';
import { rerankSettingsFromEnv } from './rerank';
import type { KnowledgeDeps } from './search';

/** The store, the search backend (the store itself unless another is given), embedding and rerank settings. */
export function knowledgeDeps(store: Store, env: Record<string, string | undefined>, index?: ChunkIndex): KnowledgeDeps {
  return { store, index: index ?? storeIndex(store), embedding: embeddingSettingsFromEnv(env), rerank: rerankSettingsFromEnv(env) };
}
