/**
 * The extraction prompts of RAGFlow's memory (memory/utils/prompt_util.py, `PromptAssembler`),
 * word for word: a memory's LLM is asked for JSON keyed by the memory's non-raw types, each a
 * list of `{content, valid_at, invalid_at}`. A memory stores the assembled system prompt when it
 * is created, as RAGFlow does, so an edited prompt is kept.
 */
import type { MemoryTypeName } from '../store/memoryTypes';

type Extracted = Exclude<MemoryTypeName, 'raw'>;
const EXTRACTED: readonly Extracted[] = ['semantic', 'episodic', 'procedural'];

const SYSTEM_BASE = (instructions: string, timestampFormat: string, maxItems: number) => `**Memory Extraction Specialist**
You are an expert at analyzing conversations to extract structured memory.

${instructions}


**OUTPUT REQUIREMENTS:**
1. Output MUST be valid JSON
2. Follow the specified output format exactly
3. Each extracted item MUST have: content, valid_at, invalid_at
4. Timestamps in ${timestampFormat} format
5. Only extract memory types specified above
6. Maximum ${maxItems} items per type
`;

const TYPE_INSTRUCTIONS: Record<Extracted, string> = {
  semantic: `
        **EXTRACT SEMANTIC KNOWLEDGE:**
        - Universal facts, definitions, concepts, relationships
        - Time-invariant, generally true information
        - Examples: "The capital of France is Paris", "Water boils at 100°C"

        **Timestamp Rules for Semantic Knowledge:**
        - valid_at: When the fact became true (e.g., law enactment, discovery)
        - invalid_at: When it becomes false (e.g., repeal, disproven) or empty if still true
        - Default: valid_at = conversation time, invalid_at = "" for timeless facts
        `,
  episodic: `
        **EXTRACT EPISODIC KNOWLEDGE:**
        - Specific experiences, events, personal stories
        - Time-bound, person-specific, contextual
        - Examples: "Yesterday I fixed the bug", "User reported issue last week"

        **Timestamp Rules for Episodic Knowledge:**
        - valid_at: Event start/occurrence time
        - invalid_at: Event end time or empty if instantaneous
        - Extract explicit times: "at 3 PM", "last Monday", "from X to Y"
        `,
  procedural: `
        **EXTRACT PROCEDURAL KNOWLEDGE:**
        - Processes, methods, step-by-step instructions
        - Goal-oriented, actionable, often includes conditions
        - Examples: "To reset password, click...", "Debugging steps: 1)..."

        **Timestamp Rules for Procedural Knowledge:**
        - valid_at: When procedure becomes valid/effective
        - invalid_at: When it expires/becomes obsolete or empty if current
        - For version-specific: use release dates
        - For best practices: invalid_at = ""
        `,
};

const OUTPUT_TEMPLATES: Record<Extracted, string> = {
  semantic: `
        "semantic": [
            {
                "content": "Clear factual statement",
                "valid_at": "timestamp — use the conversation time when the fact has no date of its own",
                "invalid_at": "timestamp or empty"
            }
        ]
        `,
  episodic: `
        "episodic": [
            {
                "content": "Narrative event description",
                "valid_at": "event start timestamp",
                "invalid_at": "event end timestamp or empty"
            }
        ]
        `,
  procedural: `
        "procedural": [
            {
                "content": "Actionable instructions",
                "valid_at": "procedure effective timestamp",
                "invalid_at": "procedure expiration timestamp or empty"
            }
        ]
        `,
};

const EXAMPLES: Record<Extracted, string> = {
  semantic: `
            **Semantic Example:**
            Input: "Python lists are mutable and support various operations."
            Output: {"semantic": [{"content": "Python lists are mutable data structures", "valid_at": "2024-01-15T10:00:00", "invalid_at": ""}]}
            `,
  episodic: `
            **Episodic Example:**
            Input: "I deployed the new feature yesterday afternoon."
            Output: {"episodic": [{"content": "User deployed new feature", "valid_at": "2024-01-14T14:00:00", "invalid_at": "2024-01-14T18:00:00"}]}
            `,
  procedural: `
            **Procedural Example:**
            Input: "To debug API errors: 1) Check logs 2) Verify endpoints 3) Test connectivity."
            Output: {"procedural": [{"content": "API error debugging: 1. Check logs 2. Verify endpoints 3. Test connectivity", "valid_at": "2024-01-15T10:00:00", "invalid_at": ""}]}
            `,
};

/** The non-raw types of `types`, in RAGFlow's order (semantic, episodic, procedural). */
export function typesToExtract(types: readonly string[]): Extracted[] {
  return EXTRACTED.filter((t) => types.includes(t));
}

/** RAGFlow's `PromptAssembler.assemble_system_prompt({memory_type})`. */
export function assembleSystemPrompt(types: readonly string[]): string {
  const chosen = typesToExtract(types);
  let prompt = SYSTEM_BASE(chosen.map((t) => TYPE_INSTRUCTIONS[t]).join('\n'), 'ISO 8601', 5);
  prompt += `\n**REQUIRED OUTPUT FORMAT (JSON):**\n\`\`\`json\n{\n${chosen.map((t) => OUTPUT_TEMPLATES[t]).join(',\n')}\n}\n\`\`\`\n`;
  const examples = chosen.map((t) => EXAMPLES[t]).join('\n');
  if (examples) prompt += `\n**EXAMPLES:**\n${examples}\n`;
  return prompt;
}

/** Whether `prompt` is the generated default for `types` (RAGFlow's `is_default_system_prompt`). */
export function isDefaultSystemPrompt(prompt: string, types: readonly string[]): boolean {
  return prompt === assembleSystemPrompt(types);
}

/** RAGFlow's `assemble_user_prompt`. */
export function assembleUserPrompt(conversation: string, conversationTime: string, currentTime: string): string {
  return `
**CONVERSATION:**
${conversation}

**CONVERSATION TIME:** ${conversationTime}
**CURRENT TIME:** ${currentTime}
`;
}

/** The raw turn as a memory stores it. */
export function turnContent(userInput: string, agentResponse: string): string {
  return `User Input: ${userInput}\nAgent Response: ${agentResponse}`;
}

/** RAGFlow's `get_json_result_from_llm_response`: the JSON of an answer (a ```json fence stripped), else {}. */
export function parseExtraction(answer: string): Record<string, unknown> {
  let s = answer.trim();
  if (s.startsWith('```json')) s = s.slice(7);
  if (s.endsWith('```')) s = s.slice(0, -3);
  try {
    const v = JSON.parse(s.trim()) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
