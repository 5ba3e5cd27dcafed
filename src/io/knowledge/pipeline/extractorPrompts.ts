/**
 * The Go Extractor's built-in prompts (RAGFlow's `internal/ingestion/component/extractor.go` and
 * `extractor_tag.go`), used when a section gives no `system_prompt` of its own.
 */
export const autoKeywordPrompt = (topN: number) => `## Role
You are a text analyzer.

## Task
Extract the most important keywords/phrases of a given piece of text content.

## Requirements
- Summarize the text content, and give the top ${topN} important keywords/phrases.
- The keywords MUST be in the same language as the given piece of text content.
- The keywords are delimited by ENGLISH COMMA.
- Output keywords ONLY.`;

export const autoQuestionPrompt = (topN: number) => `## Role
You are a text analyzer.

## Task
Propose questions about a given piece of text content.

## Requirements
- Understand and summarize the text content, and propose the top ${topN} important questions.
- The questions SHOULD NOT have overlapping meanings.
- The questions SHOULD cover the main content of the text as much as possible.
- The questions MUST be in the same language as the given piece of text content.
- One question per line.
- Output questions ONLY.`;

export const autoMetadataPrompt = (schema: string) => `## Role: Metadata extraction expert.
## Rules:
 - Strict Evidence Only: Extract a value ONLY if it is explicitly mentioned in the Content.
 - Enum Filter: For any field with an 'enum' list, the list acts as a strict filter. If no element from the list (or its direct synonym) is found in the Content, you MUST NOT extract that field.
 - No Meta-Inference: Do not infer values based on the document's nature, format, or category. If the text does not literally state the information, treat it as missing.
 - Zero-Hallucination: Never invent information or pick a "likely" value from the enum to fill a field.
 - Empty Result: If no matches are found for any field, or if the content is irrelevant, output ONLY {}.
 - Output: ONLY a valid JSON string. No Markdown, no notes.

## Schema for extraction:
${schema}`;

export const autoSummaryPrompt = `## Role
You are a precise and faithful text summarizer.

## Task
Create a concise and faithful summary of the provided text content.

## Requirements
- The summary MUST strictly rely on the provided text without hallucinating.
- The summary MUST be in the same language as the original text content.
- Be concise and focus on the main ideas, omitting redundant details.
- Output summary ONLY.`;

export function taggerPrompt(topN: number, tagSet: string, examples: Array<{ content: string; weights: Record<string, number> }>, text: string): string {
  const block = examples.map((ex, i) => `# Examples ${i}\n### Text Content\n${ex.content}\n\nOutput:\n${JSON.stringify(ex.weights)}\n\n`).join('');
  return `## Role
You are a text analyzer.

## Task
Add tags (labels) to a given piece of text content based on the examples and the entire tag set.

## Steps
- Review the tag/label set.
- Review examples which all consist of both text content and assigned tags with relevance score in JSON format.
- Summarize the text content, and tag it with the top ${topN} most relevant tags from the set of tags/labels and the corresponding relevance score.

## Requirements
- The tags MUST be from the tag set.
- The output MUST be in JSON format only, the key is tag and the value is its relevance score.
- The relevance score must range from 1 to 10.
- Output keywords ONLY.

# TAG SET
${tagSet}

${block}
# Real Data
### Text Content
${text}

Output:`;
}
