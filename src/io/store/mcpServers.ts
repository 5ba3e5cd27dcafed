/** MCP servers registered per tenant (RAGFlow's `mcp_id` references them). */
import { jsonParam } from './sql';
import { newId } from './time';
import type { McpServerRecord, Queryable, Store } from './contract';

const COLUMNS = 'id, tenant_id, name, server_type, url, command, args, env, headers, variables, description, create_time, update_time';

export function mcpServersRepository(db: Queryable): Store['mcpServers'] {
  return {
    async create(input) {
      const now = Date.now();
      const result = await db.query<McpServerRecord>(
        `INSERT INTO mcp_servers (id, tenant_id, name, server_type, url, command, args, env, headers, variables, description, create_time, update_time)
         VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8::jsonb, $9::jsonb, $10::jsonb, $11, $12, $12) RETURNING ${COLUMNS}`,
        [
          newId(),
          input.tenantId,
          input.name,
          input.serverType,
          input.url ?? null,
          input.command ?? null,
          jsonParam(input.args ?? []),
          jsonParam(input.env ?? {}),
          jsonParam(input.headers ?? {}),
          jsonParam(input.variables ?? {}),
          input.description ?? null,
          now,
        ],
      );
      return result.rows[0]!;
    },
    async get(tenantId, id) {
      const result = await db.query<McpServerRecord>(`SELECT ${COLUMNS} FROM mcp_servers WHERE tenant_id = $1 AND id = $2`, [tenantId, id]);
      return result.rows[0] ?? null;
    },
    async list(tenantId) {
      const result = await db.query<McpServerRecord>(`SELECT ${COLUMNS} FROM mcp_servers WHERE tenant_id = $1 ORDER BY update_time DESC`, [tenantId]);
      return result.rows;
    },
    async update(tenantId, id, patch) {
      const current = await this.get(tenantId, id);
      if (!current) return null;
      const next = {
        name: patch.name ?? current.name,
        serverType: patch.serverType ?? current.server_type,
        url: patch.url !== undefined ? patch.url : current.url,
        command: patch.command !== undefined ? patch.command : current.command,
        args: patch.args ?? current.args,
        env: patch.env ?? current.env,
        headers: patch.headers ?? current.headers,
        variables: patch.variables ?? current.variables,
        description: patch.description !== undefined ? patch.description : current.description,
      };
      const result = await db.query<McpServerRecord>(
        `UPDATE mcp_servers SET name = $3, server_type = $4, url = $5, command = $6, args = $7::jsonb, env = $8::jsonb, headers = $9::jsonb, variables = $10::jsonb, description = $11, update_time = $12
         WHERE tenant_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
        [
          tenantId,
          id,
          next.name,
          next.serverType,
          next.url,
          next.command,
          jsonParam(next.args),
          jsonParam(next.env),
          jsonParam(next.headers),
          jsonParam(next.variables),
          next.description,
          Date.now(),
        ],
      );
      return result.rows[0] ?? null;
    },
    async delete(tenantId, id) {
      const result = await db.query('DELETE FROM mcp_servers WHERE tenant_id = $1 AND id = $2 RETURNING id', [tenantId, id]);
      return result.rows.length > 0;
    },
  };
}
