/** Reading MCP answers into what an Agent's model sees. */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { McpToolInfo } from '../../core/components/callContracts';

type Content = { type: string; text?: string; mimeType?: string; resource?: { uri?: string; text?: string; mimeType?: string }; uri?: string; name?: string };

/** All text of a tool result: text parts in order, other parts named (RAGFlow keeps only the first text). */
export function resultText(result: { content?: unknown; structuredContent?: unknown }): string {
  const parts = Array.isArray(result.content) ? (result.content as Content[]) : [];
  const texts = parts.map((c) => {
    switch (c.type) {
      case 'text':
        return c.text ?? '';
      case 'resource':
        return c.resource?.text ?? `[resource ${c.resource?.uri ?? ''}]`;
      case 'resource_link':
        return `[resource ${c.name ?? ''} ${c.uri ?? ''}]`.trim();
      default:
        return `[${c.type}${c.mimeType ? ` ${c.mimeType}` : ''} omitted]`;
    }
  });
  if (texts.length === 0 && result.structuredContent !== undefined) return JSON.stringify(result.structuredContent);
  return texts.length === 0 ? 'MCP server returned empty content.' : texts.join('\n');
}

/** Every tool of a server, following pagination cursors. */
export async function listAllTools(client: Client, options: { timeout: number; signal: AbortSignal }): Promise<McpToolInfo[]> {
  const tools: McpToolInfo[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 50; page++) {
    const res = await client.listTools(cursor ? { cursor } : undefined, options);
    for (const t of res.tools)
      tools.push({
        name: t.name,
        description: t.description ?? '',
        inputSchema: (t.inputSchema ?? { type: 'object', properties: {} }) as Record<string, unknown>,
      });
    cursor = res.nextCursor;
    if (!cursor) break;
  }
  return tools;
}
