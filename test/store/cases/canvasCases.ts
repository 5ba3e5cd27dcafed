import { expect, it } from 'vitest';
import { freshTenant, minimalDsl, newCanvas, newSession, type StoreContext } from './context';

const LIST_ALL = { page: 1, pageSize: 0, orderby: 'create_time', desc: false };

export function tenantCases(ctx: StoreContext): void {
  it('ensures a tenant once and then returns the existing one unchanged', async () => {
    const id = freshTenant();
    const created = await ctx.store.tenants.ensure(id, 'Acme');
    const again = await ctx.store.tenants.ensure(id, 'Renamed');
    expect(created).toEqual({ id, name: 'Acme', create_time: expect.any(Number) });
    expect(again).toEqual(created);
  });
}

export function canvasCases(ctx: StoreContext): void {
  it('creates a canvas with its first version and reads it back', async () => {
    const tenantId = freshTenant();
    const canvas = await ctx.store.canvases.create({ tenantId, title: 'Support bot', description: 'answers', dsl: minimalDsl() });
    expect(canvas).toMatchObject({
      tenant_id: tenantId,
      title: 'Support bot',
      description: 'answers',
      avatar: null,
      canvas_category: 'agent_canvas',
      dsl: minimalDsl(),
    });
    expect(canvas.id).toMatch(/^[0-9a-f]{32}$/);
    expect(canvas.create_time).toBeTypeOf('number');
    expect(canvas.create_date).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(await ctx.store.canvases.get(tenantId, canvas.id)).toEqual(canvas);
    const versions = await ctx.store.canvases.listVersions(tenantId, canvas.id);
    expect(versions).toEqual([
      expect.objectContaining({ id: canvas.version_id, user_canvas_id: canvas.id, title: 'Support bot', release: false, dsl: minimalDsl() }),
    ]);
    expect(await ctx.store.canvases.getVersion(tenantId, canvas.id, canvas.version_id)).toEqual(versions[0]);
  });

  it("hides another tenant's canvas from every operation", async () => {
    const owner = freshTenant();
    const intruder = freshTenant();
    const canvas = await newCanvas(ctx.store, owner, 'Private');
    expect(await ctx.store.canvases.get(intruder, canvas.id)).toBeNull();
    expect(await ctx.store.canvases.findByTitle(intruder, 'Private')).toBeNull();
    expect(await ctx.store.canvases.list(intruder, LIST_ALL)).toEqual({ items: [], total: 0 });
    expect(await ctx.store.canvases.update(intruder, canvas.id, { title: 'Stolen', dsl: minimalDsl('v2') })).toBeNull();
    expect(await ctx.store.canvases.delete(intruder, canvas.id)).toBe(false);
    expect(await ctx.store.canvases.listVersions(intruder, canvas.id)).toEqual([]);
    expect(await ctx.store.canvases.getVersion(intruder, canvas.id, canvas.version_id)).toBeNull();
    expect(await ctx.store.canvases.get(owner, canvas.id)).toEqual(canvas);
    expect(await ctx.store.canvases.listVersions(owner, canvas.id)).toHaveLength(1);
  });

  it('finds a canvas by title regardless of case', async () => {
    const tenantId = freshTenant();
    const canvas = await newCanvas(ctx.store, tenantId, 'Travel Planner');
    expect((await ctx.store.canvases.findByTitle(tenantId, 'travel planner'))?.id).toBe(canvas.id);
    expect(await ctx.store.canvases.findByTitle(tenantId, 'Travel')).toBeNull();
  });

  it('lists canvases with paging, filters and a whitelisted order', async () => {
    const tenantId = freshTenant();
    const titles = ['Beta', 'alpha helper', 'Gamma', 'Alpha'];
    const ids: Record<string, string> = {};
    for (const [i, title] of titles.entries()) {
      const canvas = await newCanvas(ctx.store, tenantId, title);
      ids[title] = canvas.id;
      // Fixed times make the order independent of how fast the rows were written.
      await ctx.db.query('UPDATE canvases SET create_time = $2, update_time = $3 WHERE id = $1', [canvas.id, 1000 + i, 5000 - i]);
    }
    const list = (filter: Partial<typeof LIST_ALL> & { keywords?: string; id?: string; title?: string }) =>
      ctx.store.canvases.list(tenantId, { ...LIST_ALL, ...filter }).then((r) => ({ titles: r.items.map((c) => c.title), total: r.total }));

    expect(await list({ orderby: 'create_time' })).toEqual({ titles: titles, total: 4 });
    expect(await list({ orderby: 'create_time', desc: true, page: 1, pageSize: 3 })).toEqual({ titles: ['Alpha', 'Gamma', 'alpha helper'], total: 4 });
    expect(await list({ orderby: 'create_time', desc: true, page: 2, pageSize: 3 })).toEqual({ titles: ['Beta'], total: 4 });
    expect(await list({ orderby: 'create_time', page: 3, pageSize: 3 })).toEqual({ titles: [], total: 4 });
    expect(await list({ orderby: 'update_time' })).toEqual({ titles: ['Alpha', 'Gamma', 'alpha helper', 'Beta'], total: 4 });
    expect(await list({ orderby: 'title' })).toEqual({ titles: ['Alpha', 'alpha helper', 'Beta', 'Gamma'], total: 4 });
    // Anything not whitelisted sorts by update_time and is never written into the SQL.
    expect(await list({ orderby: 'title; DROP TABLE canvases' })).toEqual({ titles: ['Alpha', 'Gamma', 'alpha helper', 'Beta'], total: 4 });
    expect(await list({ keywords: 'ALPHA' })).toEqual({ titles: ['alpha helper', 'Alpha'], total: 2 });
    expect(await list({ keywords: '%' })).toEqual({ titles: [], total: 0 });
    expect(await list({ title: 'alpha' })).toEqual({ titles: ['Alpha'], total: 1 });
    expect(await list({ id: ids.Gamma })).toEqual({ titles: ['Gamma'], total: 1 });
  });

  it('records a new version and moves version_id when the DSL is saved', async () => {
    const tenantId = freshTenant();
    const canvas = await newCanvas(ctx.store, tenantId, 'Draft');
    const updated = await ctx.store.canvases.update(tenantId, canvas.id, { title: 'Final', dsl: minimalDsl('v2') });
    expect(updated).toMatchObject({ id: canvas.id, title: 'Final', dsl: minimalDsl('v2'), create_time: canvas.create_time });
    expect(updated!.version_id).not.toBe(canvas.version_id);
    expect(updated!.update_time).toBeGreaterThanOrEqual(canvas.update_time);
    const versions = await ctx.store.canvases.listVersions(tenantId, canvas.id);
    expect(versions.map((v) => [v.id, v.title, v.dsl.marker])).toEqual([
      [updated!.version_id, 'Final', 'v2'],
      [canvas.version_id, 'Draft', 'v1'],
    ]);
  });

  it('updates fields without a new version when no DSL is given', async () => {
    const tenantId = freshTenant();
    const canvas = await ctx.store.canvases.create({ tenantId, title: 'Bot', description: 'old', avatar: 'a.png', dsl: minimalDsl() });
    const updated = await ctx.store.canvases.update(tenantId, canvas.id, { description: null, canvasType: 'chatbot' });
    expect(updated).toMatchObject({
      title: 'Bot',
      description: null,
      avatar: 'a.png',
      canvas_type: 'chatbot',
      version_id: canvas.version_id,
      dsl: minimalDsl(),
    });
    expect(await ctx.store.canvases.listVersions(tenantId, canvas.id)).toHaveLength(1);
  });

  it('deletes a canvas together with its versions and sessions', async () => {
    const tenantId = freshTenant();
    const canvas = await newCanvas(ctx.store, tenantId);
    await ctx.store.canvases.update(tenantId, canvas.id, { dsl: minimalDsl('v2') });
    const session = await newSession(ctx.store, tenantId, canvas.id);
    expect(await ctx.store.canvases.delete(tenantId, canvas.id)).toBe(true);
    expect(await ctx.store.canvases.get(tenantId, canvas.id)).toBeNull();
    expect(await ctx.store.canvases.delete(tenantId, canvas.id)).toBe(false);
    const left = await ctx.db.query<{ versions: number; sessions: number }>(
      `SELECT (SELECT count(*)::int FROM canvas_versions WHERE user_canvas_id = $1) AS versions,
              (SELECT count(*)::int FROM sessions WHERE id = $2) AS sessions`,
      [canvas.id, session.id],
    );
    expect(left.rows[0]).toEqual({ versions: 0, sessions: 0 });
  });
}
