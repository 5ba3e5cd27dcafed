/**
 * The prompt sections RAGFlow lets users override in an Agent's system prompt (`<TASK_ANALYSIS>`
 * ...), served by `GET /api/v1/agents/prompts`. Our own wording.
 */
export const AGENT_PROMPTS = {
  task_analysis: [
    'Analyze the task before acting.',
    '- Restate the goal in one sentence.',
    '- List what is known, what is missing, and which tools can supply it.',
    '- Note constraints (format, length, language, sources to cite).',
  ].join('\n'),
  plan_generation: [
    'Decide the next step.',
    'Answer with a JSON list of tool calls to run now, each {"name": ..., "arguments": {...}}; calls in one list run in parallel.',
    'When the task is complete, answer with [{"name": "COMPLETE_TASK", "arguments": {"answer": "..."}}].',
  ].join('\n'),
  reflection: [
    'Reflect on the results so far.',
    '- Did the last calls answer what was missing?',
    '- What is still unknown, and is another step worth it?',
  ].join('\n'),
  citation_guidelines: [
    'Cite the knowledge you use.',
    '- Put [ID:n] right after a sentence that uses chunk n; several chunks: [ID:1][ID:3].',
    '- Cite only chunks given to you; never invent ids.',
    '- Do not cite when no chunk supports the sentence.',
  ].join('\n'),
};
