/**
 * MCP servers of a tenant, RAGFlow's `/api/v1/mcp/servers` routes: an Agent's `mcp[].mcp_id`
 * names one of them. Saving a server lists its tools (stored in `variables.tools`, as RAGFlow
 * does), so a server that cannot be reached is refused when it is saved, not mid-run. Beyond
 * RAGFlow: `stdio` servers (a `command` from the operator's MCP_STDIO_COMMANDS allow-list).
 * HTTP servers pass the network guard (see src/io/mcp/connect.ts): testing or saving a
 * definition cannot reach internal hosts, nor read what a failing target answered.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { checkServer, MCP_SERVER_TYPES, mcpPolicyFromEnv, probeTools } from '../../src/io/mcp/connect';
import { AppError } from '../../src/errors';
import { formatDate } from '../../src/io/store/time';
import type { McpServerRecord } from '../../src/io/store/contract';
import type { AppDeps } from '../deps';
import { ragflowJson } from '../envelope';
import { pageParams } from '../paging';

const ragflow = { ragflow: true } as const;
const dataError = (message: string, field?: string) => new AppError('BAD_REQUEST', message, { ragflowCode: 102, ...(field ? { field } : {}) });

/** RAGFlow parses `headers`/`variables` given as JSON text too. */
const jsonObject = z.preprocess(
  (v) => {
    if (typeof v !== 'string') return v;
    try {
      return JSON.parse(v) as unknown;
    } catch {
      return {};
    }
  },
  z.record(z.string(), z.unknown()),
);

const ServerBody = z.looseObject({
  name: z.string().optional(),
  url: z.string().nullish(),
  server_type: z.string().optional(),
  description: z.string().nullish(),
  headers: jsonObject.optional(),
  variables: jsonObject.optional(),
  timeout: z.coerce.number().positive().max(300).optional(),
  command: z.string().nullish(),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
});
type ServerBody = z.infer<typeof ServerBody>;

function parseBody(raw: unknown): ServerBody {
  const parsed = ServerBody.safeParse(raw ?? {});
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => ({ path: `$.${i.path.join('.')}`, message: i.message }));
    throw new AppError('BAD_REQUEST', problems.map((p) => `${p.path}: ${p.message}`).join('; '), { problems });
  }
  return parsed.data;
}

export function mcpServerView(s: McpServerRecord): Record<string, unknown> {
  return {
    id: s.id,
    name: s.name,
    tenant_id: s.tenant_id,
    server_type: s.server_type,
    url: s.url,
    description: s.description,
    headers: s.headers,
    variables: s.variables,
    ...(s.server_type === 'stdio' ? { command: s.command, args: s.args, env: Object.fromEntries(Object.keys(s.env).map((k) => [k, '***'])) } : {}),
    create_time: s.create_time,
    update_time: s.update_time,
    create_date: formatDate(s.create_time),
    update_date: formatDate(s.update_time),
  };
}

export async function mcpServersPlugin(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const { store } = deps;
  // Without an operator policy: no stdio servers, and only public hosts.
  const policy = deps.mcp?.policy ?? mcpPolicyFromEnv({});

  /** Checks a definition and lists its tools; RAGFlow's data errors name what is wrong. */
  async function toolsOf(def: Pick<McpServerRecord, 'name' | 'server_type' | 'url' | 'command' | 'args' | 'env' | 'headers' | 'variables'>, timeoutS: number) {
    if (!(MCP_SERVER_TYPES as readonly string[]).includes(def.server_type)) throw dataError('Unsupported MCP server type.', 'server_type');
    try {
      checkServer(def, policy);
    } catch (err) {
      if (err instanceof AppError) throw dataError(err.message, typeof err.details.field === 'string' ? err.details.field : undefined);
      throw err;
    }
    const now = Date.now();
    try {
      return await probeTools({ id: def.name, tenant_id: '', description: null, create_time: now, update_time: now, ...def }, policy, timeoutS * 1000);
    } catch (err) {
      throw dataError(err instanceof Error ? err.message : String(err));
    }
  }

  type Definition = Parameters<typeof toolsOf>[0];
  /** The stored fields of a definition, with its tools listed into `variables.tools` (RAGFlow's cache). */
  async function listedRecord(def: Definition, timeoutS: number | undefined) {
    const tools = await toolsOf(def, timeoutS ?? 10);
    const { server_type, ...rest } = def;
    return { ...rest, serverType: server_type, variables: { ...def.variables, tools: Object.fromEntries(tools.map((t) => [t.name, t])) } };
  }

  const checkName = async (tenantId: string, name: string, except?: string) => {
    if (!name || Buffer.byteLength(name, 'utf8') > 255) throw dataError(`Invalid MCP name or length is ${name.length} which is large than 255.`, 'name');
    const clash = (await store.mcpServers.list(tenantId)).find((s) => s.name.toLowerCase() === name.toLowerCase() && s.id !== except);
    if (clash) throw new AppError('DUPLICATE', 'Duplicated MCP server name.');
  };

  app.get('/api/v1/mcp/servers', { config: ragflow, schema: { tags: ['mcp'], summary: 'List MCP servers' } }, async (request) => {
    const q = request.query as Record<string, string | undefined>;
    // RAGFlow lists everything unless a page size is given.
    const paging = pageParams(q, 'create_time');
    const ids = (q.mcp_ids ?? q.mcp_id ?? '').split(',').filter(Boolean);
    const keywords = (q.keywords ?? '').toLowerCase();
    let servers = (await store.mcpServers.list(request.tenantId)).filter(
      (s) => (ids.length === 0 || ids.includes(s.id)) && (!keywords || s.name.toLowerCase().includes(keywords)),
    );
    const key = paging.orderby === 'update_time' || paging.orderby === 'name' ? paging.orderby : 'create_time';
    servers = servers.sort((a, b) => (a[key] < b[key] ? -1 : a[key] > b[key] ? 1 : 0) * (paging.desc ? -1 : 1));
    const total = servers.length;
    if (q.page_size) servers = servers.slice((paging.page - 1) * paging.pageSize, paging.page * paging.pageSize);
    return ragflowJson({ mcp_servers: servers.map(mcpServerView), total });
  });

  app.get(
    '/api/v1/mcp/servers/:mcp_id',
    { config: ragflow, schema: { tags: ['mcp'], summary: 'An MCP server (mode=download: RAGFlow export form)' } },
    async (request) => {
      const { mcp_id } = request.params as { mcp_id: string };
      const server = await store.mcpServers.get(request.tenantId, mcp_id);
      if (!server) throw dataError(`Cannot find MCP server ${mcp_id} for user ${request.tenantId}`);
      if ((request.query as { mode?: string }).mode === 'download') {
        return ragflowJson({
          mcpServers: {
            [server.name]: {
              type: server.server_type,
              url: server.url,
              name: server.name,
              authorization_token: server.variables.authorization_token ?? '',
              tools: server.variables.tools ?? {},
            },
          },
        });
      }
      return ragflowJson(mcpServerView(server));
    },
  );

  app.post(
    '/api/v1/mcp/servers',
    { config: ragflow, schema: { tags: ['mcp'], summary: 'Register an MCP server (its tools are listed and stored)' } },
    async (request) => {
      const b = parseBody(request.body);
      const missing = ['name', 'server_type', ...(b.server_type === 'stdio' ? ['command'] : ['url'])].filter((k) => !(b as Record<string, unknown>)[k]);
      if (missing.length > 0)
        throw new AppError('BAD_REQUEST', `required argument are missing: ${missing.join(',')}; `, {
          problems: missing.map((k) => ({ path: `$.${k}`, message: 'required' })),
        });
      const name = b.name!;
      await checkName(request.tenantId, name);
      const variables = { ...(b.variables ?? {}) };
      delete variables.tools;
      const def = {
        name,
        server_type: b.server_type!,
        url: b.url ?? null,
        command: b.command ?? null,
        args: b.args ?? [],
        env: b.env ?? {},
        headers: (b.headers ?? {}) as Record<string, string>,
        variables,
      };
      const created = await store.mcpServers.create({
        tenantId: request.tenantId,
        ...(await listedRecord(def, b.timeout)),
        description: b.description ?? null,
      });
      return ragflowJson(mcpServerView(created));
    },
  );

  app.put(
    '/api/v1/mcp/servers/:mcp_id',
    { config: ragflow, schema: { tags: ['mcp'], summary: 'Update an MCP server (its tools are listed again)' } },
    async (request) => {
      const { mcp_id } = request.params as { mcp_id: string };
      const current = await store.mcpServers.get(request.tenantId, mcp_id);
      if (!current) throw dataError(`Cannot find MCP server ${mcp_id} for user ${request.tenantId}`);
      const b = parseBody(request.body);
      const name = b.name ?? current.name;
      if (name !== current.name) await checkName(request.tenantId, name, mcp_id);
      const variables = { ...(b.variables ?? current.variables) };
      delete variables.tools;
      const def = {
        name,
        server_type: b.server_type ?? current.server_type,
        url: b.url !== undefined ? b.url : current.url,
        command: b.command !== undefined ? b.command : current.command,
        args: b.args ?? current.args,
        env: b.env ?? current.env,
        headers: (b.headers ?? current.headers) as Record<string, string>,
        variables,
      };
      const updated = await store.mcpServers.update(request.tenantId, mcp_id, {
        ...(await listedRecord(def, b.timeout)),
        ...(b.description !== undefined ? { description: b.description } : {}),
      });
      if (!updated) throw dataError('Failed to updated MCP server.');
      return ragflowJson(mcpServerView(updated));
    },
  );

  app.delete('/api/v1/mcp/servers/:mcp_id', { config: ragflow, schema: { tags: ['mcp'], summary: 'Delete an MCP server' } }, async (request) => {
    const { mcp_id } = request.params as { mcp_id: string };
    if (!(await store.mcpServers.delete(request.tenantId, mcp_id))) throw dataError(`Cannot find MCP server ${mcp_id} for user ${request.tenantId}`);
    return ragflowJson(true);
  });

  app.post(
    '/api/v1/mcp/servers/:mcp_id/test',
    { config: ragflow, schema: { tags: ['mcp'], summary: 'List the tools of a server definition without saving it' } },
    async (request) => {
      const { mcp_id } = request.params as { mcp_id: string };
      const b = parseBody(request.body);
      if (!b.server_type) throw new AppError('BAD_REQUEST', 'required argument are missing: server_type; ');
      const tools = await toolsOf(
        {
          name: mcp_id,
          server_type: b.server_type,
          url: b.url ?? null,
          command: b.command ?? null,
          args: b.args ?? [],
          env: b.env ?? {},
          headers: (b.headers ?? {}) as Record<string, string>,
          variables: b.variables ?? {},
        },
        b.timeout ?? 10,
      );
      return ragflowJson(tools.map((t) => ({ ...t, enabled: true })));
    },
  );
}
