/**
 * API keys and tenants.
 *
 * RAGFlow's token routes (`/api/v1/system/tokens`, its `system_api.py`): a tenant's key creates,
 * lists and revokes that tenant's keys only. The key is shown once, in the answer that creates
 * it; lists show the public `key_id` in its place (also in `token`, so RAGFlow clients that
 * revoke by the listed `token` keep working). Revoking takes the key id, never the key (a URL path
 * ends up in request logs); a key the tenant does not own is "not found" (code 102), as another
 * tenant's canvas is.
 *
 * Admin routes (ours, HTTP statuses) under `/api/v1/admin/tenants`, for keys of the admin tenant
 * (the default tenant `npm start` provisions): create a tenant with its first key, list tenants,
 * disable one (its keys stop working at once; its data stays), issue a key for one.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { AppError } from '../../src/errors';
import { formatDate, newId } from '../../src/io/store/time';
import type { ApiKeyRecord, TenantSummary } from '../../src/io/store/contract';
import type { AppDeps } from '../deps';
import { ragflowJson } from '../envelope';

const ragflow = { ragflow: true } as const;

const TokenParams = z.object({ token: z.string().min(1) });
const TenantParams = z.object({ tenant_id: z.string().min(1) });
const NewTenantBody = z.object({
  name: z.string().trim().min(1, 'must not be empty').max(128),
  /** Chosen id; a random one when absent. */
  id: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,64}$/, 'must be 1-64 letters, digits, ".", "_" or "-"')
    .optional(),
});

const dateOrNull = (ms: number | null) => (ms === null ? null : formatDate(ms));

/** A key as lists show it: never the key. */
function keyView(record: ApiKeyRecord): Record<string, unknown> {
  return {
    key_id: record.key_id,
    token: record.key_id,
    tenant_id: record.tenant_id,
    // Stored in the old unsalted form and not used since the upgrade: revoke it or use it once.
    needs_rotation: record.hash_scheme !== 'hmac-sha256',
    create_time: record.create_time,
    create_date: formatDate(record.create_time),
    update_time: record.update_time,
    update_date: dateOrNull(record.update_time),
  };
}

/** The one answer that carries the key. */
function newKeyView(key: string, record: ApiKeyRecord): Record<string, unknown> {
  return { ...keyView(record), token: key };
}

function tenantView(tenant: TenantSummary): Record<string, unknown> {
  return { ...tenant, create_date: formatDate(tenant.create_time), disabled: tenant.disabled_time !== null };
}

function requireAdmin(request: FastifyRequest): void {
  if (!request.tenantAdmin) throw new AppError('NO_PERMISSION', 'Managing tenants needs a key of the admin tenant', { status: 403 });
}

export async function apiKeysPlugin(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const tenants = deps.store.tenants;

  app.get(
    '/api/v1/system/tokens',
    { config: ragflow, schema: { tags: ['keys'], summary: 'List your API keys (key ids, never the keys)' } },
    async (request) => {
      return ragflowJson((await tenants.listApiKeys(request.tenantId)).map(keyView));
    },
  );

  app.post(
    '/api/v1/system/tokens',
    { config: ragflow, schema: { tags: ['keys'], summary: 'Create an API key (shown once, in this answer)' } },
    async (request) => {
      const { key, record } = await tenants.createApiKey(request.tenantId);
      return ragflowJson(newKeyView(key, record));
    },
  );

  app.delete(
    '/api/v1/system/tokens/:token',
    { config: ragflow, schema: { tags: ['keys'], summary: 'Revoke one of your API keys (by key id)', params: TokenParams } },
    async (request) => {
      const { token } = request.params as z.infer<typeof TokenParams>;
      // `token` is the key id, as the list shows it in `token`.
      if (!(await tenants.revokeApiKey(request.tenantId, token))) throw new AppError('NOT_FOUND', 'API key not found.');
      return ragflowJson(true);
    },
  );

  app.get('/api/v1/admin/tenants', { schema: { tags: ['admin'], summary: 'List tenants (admin key)' } }, async (request) => {
    requireAdmin(request);
    return { tenants: (await tenants.list()).map(tenantView) };
  });

  app.post(
    '/api/v1/admin/tenants',
    { schema: { tags: ['admin'], summary: 'Create a tenant and its first API key (admin key)', body: NewTenantBody } },
    async (request, reply) => {
      requireAdmin(request);
      const body = request.body as z.infer<typeof NewTenantBody>;
      const created = await tenants.create({ id: body.id ?? newId(), name: body.name });
      if (!created) throw new AppError('DUPLICATE', `Tenant id "${body.id}" is taken`, { field: 'id' });
      const { key, record } = await tenants.createApiKey(created.id);
      const summary = await tenants.get(created.id);
      return reply.status(201).send({ tenant: summary ? tenantView(summary) : created, api_key: newKeyView(key, record) });
    },
  );

  app.delete(
    '/api/v1/admin/tenants/:tenant_id',
    { schema: { tags: ['admin'], summary: 'Disable a tenant: its keys stop working, its data stays (admin key)', params: TenantParams } },
    async (request) => {
      requireAdmin(request);
      const { tenant_id } = request.params as z.infer<typeof TenantParams>;
      if (tenant_id === request.tenantId) throw new AppError('BAD_REQUEST', 'An admin tenant cannot disable itself (it would lock every admin out)');
      const disabled = await tenants.disable(tenant_id);
      if (!disabled) throw new AppError('NOT_FOUND', `No tenant "${tenant_id}"`);
      return { tenant: tenantView(disabled) };
    },
  );

  app.post(
    '/api/v1/admin/tenants/:tenant_id/tokens',
    { schema: { tags: ['admin'], summary: 'Issue an API key for a tenant (admin key)', params: TenantParams } },
    async (request, reply) => {
      requireAdmin(request);
      const { tenant_id } = request.params as z.infer<typeof TenantParams>;
      const tenant = await tenants.get(tenant_id);
      if (!tenant) throw new AppError('NOT_FOUND', `No tenant "${tenant_id}"`);
      if (tenant.disabled_time !== null) throw new AppError('CONFLICT', `Tenant "${tenant_id}" is disabled`);
      const { key, record } = await tenants.createApiKey(tenant_id);
      return reply.status(201).send({ api_key: newKeyView(key, record) });
    },
  );
}
