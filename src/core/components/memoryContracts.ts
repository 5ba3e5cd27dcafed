/** The memory calls of a Message with `memory_ids` (src/core/engine/memorySave.ts, activities/memory.ts). */

/**
 * A Message with `memory_ids` saves its turn (RAGFlow's `_save_to_memory`): the user's query and
 * the shown answer, into each memory. `key` (run, node, visit) makes the save happen once per
 * turn however often the activity runs.
 */
export interface MemorySaveRequest {
  runId: string;
  key: string;
  memoryIds: string[];
  userId: string;
  userInput: string;
  agentResponse: string;
}

export interface MemorySaveResult {
  /** Memories that got the turn now (a retry that found it saved counts it as saved, not new). */
  saved: Array<{ memoryId: string; messageId: number; isNew: boolean; extract: boolean }>;
  errors: string[];
}

/** What a memory's LLM extracts from a saved raw message (semantic, episodic, procedural). */
export interface MemoryExtractRequest {
  runId: string;
  memoryId: string;
  sourceId: number;
  userId: string;
  userInput: string;
  agentResponse: string;
}

export interface MemoryExtractResult {
  extracted: number;
  note?: string;
}
