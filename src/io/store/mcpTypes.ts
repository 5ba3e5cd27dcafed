/** Stored MCP servers (RAGFlow's /mcp/servers). */
export interface McpServerRecord {
  id: string;
  tenant_id: string;
  name: string;
  /** `streamable-http`, `sse` or `stdio`. */
  server_type: string;
  url: string | null;
  command: string | null;
  args: string[];
  env: Record<string, string>;
  headers: Record<string, string>;
  /** RAGFlow's variables (authorization_token, cached `tools`). */
  variables: Record<string, unknown>;
  description: string | null;
  create_time: number;
  update_time: number;
}

export interface NewMcpServer {
  tenantId: string;
  name: string;
  serverType: string;
  url?: string | null;
  command?: string | null;
  args?: string[];
  env?: Record<string, string>;
  headers?: Record<string, string>;
  variables?: Record<string, unknown>;
  description?: string | null;
}
