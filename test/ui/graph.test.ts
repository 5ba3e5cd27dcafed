/**
 * The run view's graph in a real headless Chromium against the real app: a canvas whose editor
 * positions collapse its branches into one row drawn in layers, zoom and pan (buttons, keys,
 * wheel, drag) with labels readable and clipped, an Agent whose every tool call failed marked
 * (its tool failed too), and a run of a deleted canvas drawn from the run's own DSL.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startHarness, type Harness } from '../helpers/appHarness';
import { dsl } from '../helpers/canvasKit';
import { launchBrowser, screenshot, signIn, type Browser } from './browser';
import { createAgent, runStatus, script, startRun, waitNode } from './kit';

let h: Harness;
let browser: Browser;
const model = { llm_id: 'scripted@OpenAI' };
const supportRouter = JSON.parse(readFileSync(path.resolve(__dirname, '../../examples/support_router.json'), 'utf8')) as { dsl: unknown };

beforeAll(async () => {
  [h, browser] = await Promise.all([startHarness(), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await h?.close();
});

interface ScreenBox {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** Each node's box as drawn on screen, by node id. */
const screenBoxes = async (page: Page): Promise<Record<string, ScreenBox>> =>
  Object.fromEntries(
    await page.locator('svg.graph g.node').evaluateAll((gs) =>
      gs.map((g) => {
        const r = g.querySelector('rect')!.getBoundingClientRect();
        return [g.getAttribute('data-node')!, { x: r.x, y: r.y, w: r.width, h: r.height }] as const;
      }),
    ),
  );

// In the page (its DOM types are not the test's): each matched text's font size times the zoom, on screen.
const screenFontSizes = (page: Page, selector: string) =>
  page.evaluate(
    `[...document.querySelectorAll(${JSON.stringify(selector)})].map((t) => t.getScreenCTM().a * parseFloat(getComputedStyle(t).fontSize))`,
  ) as Promise<number[]>;
const fillOf = (page: Page, selector: string) => page.evaluate(`getComputedStyle(document.querySelector(${JSON.stringify(selector)})).fill`) as Promise<string>;

const overlap = (a: ScreenBox, b: ScreenBox) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
const transform = (page: Page) => page.locator('svg.graph g.viewport').getAttribute('transform');
const scaleOf = (t: string | null) => Number(/scale\(([\d.]+)\)/.exec(t ?? '')?.[1]);

async function openRun(runId: string): Promise<{ page: Page; errors: string[] }> {
  const opened = await browser.page();
  await signIn(opened.page, h.base, h.key);
  await opened.page.goto(`${h.base}/ui/#/runs/${runId}`);
  await opened.page.locator('svg.graph g.node').first().waitFor({ timeout: 30_000 });
  return opened;
}

describe('run view graph', () => {
  it('draws the Support router with three branches: no boxes overlap, the Categorize’s three edges go to distinct rows', async () => {
    h.llm.whenPromptIncludes('Invoices, payments, refunds', { content: 'billing' });
    h.llm.whenPromptIncludes('You are a billing specialist', { content: 'Refund on its way.' });
    const runId = await startRun(h, await createAgent(h, 'Support router', supportRouter.dsl));
    const { page, errors } = await openRun(runId);
    await expect.poll(() => runStatus(page), { timeout: 30_000 }).toBe('finished');
    const boxes = await screenBoxes(page);
    const ids = Object.keys(boxes);
    expect(ids).toHaveLength(7);
    for (let i = 0; i < ids.length; i++)
      for (let j = i + 1; j < ids.length; j++) expect(overlap(boxes[ids[i]!]!, boxes[ids[j]!]!), `${ids[i]} overlaps ${ids[j]}`).toBe(false);
    // The editor put all seven in one row; drawn, the three branches are three rows.
    const branches = ['LLM:Billing', 'LLM:Technical', 'Message:Other'];
    expect(new Set(branches.map((t) => Math.round(boxes[t]!.y + boxes[t]!.h / 2))).size).toBe(3);
    const targets = await page.locator('svg.graph path.edge[data-from="Categorize:Route"]').evaluateAll((ps) => ps.map((p) => p.getAttribute('data-to')!));
    expect(targets.sort()).toEqual(branches);
    expect(await page.locator('svg.graph').getAttribute('data-layout')).toBe('layered');
    // The branch taken is done, the others skipped.
    await waitNode(page, 'Message:Billing', 'done');
    expect(await page.locator('svg.graph [data-node="Message:Other"]').getAttribute('data-state')).toBe('skipped');
    await screenshot(page, 'graph-support-router');
    expect(errors).toEqual([]);
  });

  it('zooms with the buttons, the keyboard and the wheel, pans by dragging; labels are readable and long ones clipped', async () => {
    const long = 'A very long component name that does not fit in its box at all';
    const runId = await startRun(
      h,
      await createAgent(h, 'zoom', {
        ...(dsl({
          begin: { name: 'Begin', downstream: ['Message:m'] },
          'Message:m': { name: 'Message', params: { content: ['Hi.'] } },
        }) as Record<string, unknown>),
        graph: {
          nodes: [
            { id: 'begin', position: { x: 0, y: 0 }, data: { name: 'Begin' } },
            { id: 'Message:m', position: { x: 300, y: 0 }, data: { name: long } },
          ],
          edges: [],
        },
      }),
    );
    const { page, errors } = await openRun(runId);
    await waitNode(page, 'Message:m', 'done');
    // Labels at the first view are at least 11 px on screen; the long one ends in an ellipsis, its full text in the tooltip.
    const sizes = await screenFontSizes(page, 'svg.graph text.label, svg.graph text.type');
    expect(Math.min(...sizes)).toBeGreaterThanOrEqual(11);
    const label = page.locator('svg.graph [data-node="Message:m"] text.label');
    expect(await label.textContent()).toMatch(/^A very long.*…$/);
    expect(await page.locator('svg.graph [data-node="Message:m"] > title').textContent()).toContain(long);

    const first = scaleOf(await transform(page));
    await page.locator('[data-role=zoom-in]').click();
    expect(scaleOf(await transform(page))).toBeCloseTo(first * 1.25, 2);
    await page.locator('[data-role=zoom-out]').click();
    await page.locator('[data-role=zoom-out]').click();
    expect(scaleOf(await transform(page))).toBeCloseTo(first / 1.25, 2);
    await page.locator('svg.graph').focus();
    await page.keyboard.press('+');
    expect(scaleOf(await transform(page))).toBeCloseTo(first, 2);
    await page.keyboard.press('0');
    const fitted = scaleOf(await transform(page));
    const svg = (await page.locator('svg.graph').boundingBox())!;
    await page.mouse.move(svg.x + svg.width / 2, svg.y + svg.height / 2);
    await page.mouse.wheel(0, -200);
    await expect.poll(async () => scaleOf(await transform(page))).toBeGreaterThan(fitted);

    // A drag from empty space moves the view by as much as the pointer moved, and selects nothing.
    const before = await transform(page);
    const tx = (t: string | null) => Number(/translate\(([-\d.]+),/.exec(t ?? '')?.[1]);
    await page.mouse.move(svg.x + 10, svg.y + svg.height - 10);
    await page.mouse.down();
    await page.mouse.move(svg.x + 60, svg.y + svg.height - 10, { steps: 5 });
    await page.mouse.up();
    expect(tx(await transform(page)) - tx(before)).toBeCloseTo(50, 0);
    // A plain click still selects a node.
    await page.locator('svg.graph [data-node="begin"]').click();
    await page.locator('[data-panel-node="begin"]').waitFor();
    expect(errors).toEqual([]);
  });

  it('marks an Agent whose every tool call failed with a warning, not as a plain done, and its tool as failed', async () => {
    script(h.llm, 'MARK-fails', [
      // Arguments that are not an object: the call fails before reaching the tool.
      { toolCalls: [{ id: 't1', name: 'Researcher_0', arguments: '[1, 2]' }] },
      { toolCalls: [{ id: 't2', name: 'Researcher_0', arguments: '"x"' }] },
      { content: 'I could not look it up.' },
    ]);
    const researcher = {
      component_name: 'Agent',
      name: 'Researcher',
      params: { ...model, sys_prompt: 'MARK-sub2 You find facts.', description: 'Finds facts.' },
    };
    const runId = await startRun(
      h,
      await createAgent(
        h,
        'failing tools',
        dsl({
          begin: { name: 'Begin', downstream: ['Agent:lead'] },
          'Agent:lead': { name: 'Agent', params: { ...model, sys_prompt: 'MARK-fails You lead.', tools: [researcher] }, downstream: ['Message:m'] },
          'Message:m': { name: 'Message', params: { content: ['{Agent:lead@content}'] } },
        }),
      ),
    );
    const { page, errors } = await openRun(runId);
    await expect.poll(() => runStatus(page), { timeout: 30_000 }).toBe('finished');
    const agent = page.locator('svg.graph [data-node="Agent:lead"]');
    expect(await agent.getAttribute('data-state')).toBe('done');
    expect(await agent.getAttribute('data-warning')).toBe('all');
    expect(await agent.locator('text.warn').isVisible()).toBe(true);
    const fill = (id: string) => fillOf(page, `svg.graph [data-node="${id}"] > rect`);
    expect(await fill('Agent:lead')).not.toBe(await fill('begin'));
    const tool = page.locator('svg.graph [data-tool="Agent:lead::tool:0"]');
    expect(await tool.getAttribute('data-state')).toBe('failed');
    expect(await tool.textContent()).toContain('Researcher');
    expect(await page.locator('svg.graph [data-node="Message:m"]').getAttribute('data-warning')).toBeNull();
    // The tool opens its Agent's panel, where its failed calls are listed.
    await tool.click();
    await expect.poll(() => page.locator('[data-panel-node="Agent:lead"] .tool-call.has-error').count()).toBe(2);
    await screenshot(page, 'graph-failed-tools');
    expect(errors).toEqual([]);
  });

  it('draws a run of a deleted canvas from the run’s own DSL: its nodes in order, with their edges', async () => {
    const agentId = await createAgent(
      h,
      'deleted',
      dsl({
        begin: { name: 'Begin', downstream: ['Message:first'] },
        'Message:first': { name: 'Message', params: { content: ['One.'] }, downstream: ['Message:second'] },
        'Message:second': { name: 'Message', params: { content: ['Two.'] } },
      }),
    );
    const runId = await startRun(h, agentId);
    await expect.poll(async () => ((await api(h, 'GET', `/api/v1/runs/${runId}`)).body as { status: string }).status, { timeout: 30_000 }).toBe('finished');
    expect(((await api(h, 'DELETE', `/api/v1/agents/${agentId}`)).body as { code: number }).code).toBe(0);
    expect(((await api(h, 'GET', `/api/v1/agents/${agentId}`)).body as { code: number }).code).not.toBe(0);

    // The run keeps its own copy, for its tenant only.
    const own = (await api(h, 'GET', `/api/v1/runs/${runId}/dsl`)).body as { dsl: { components: Record<string, unknown> } };
    expect(Object.keys(own.dsl.components).sort()).toEqual(['Message:first', 'Message:second', 'begin']);
    expect((await api(h, 'GET', `/api/v1/runs/${runId}/dsl`, { key: h.otherKey })).status).toBe(404);

    const { page, errors } = await openRun(runId);
    await waitNode(page, 'Message:second', 'done');
    const boxes = await screenBoxes(page);
    expect(boxes.begin!.x).toBeLessThan(boxes['Message:first']!.x);
    expect(boxes['Message:first']!.x).toBeLessThan(boxes['Message:second']!.x);
    const edges = await page.locator('svg.graph path.edge').evaluateAll((ps) => ps.map((p) => `${p.getAttribute('data-from')}→${p.getAttribute('data-to')}`));
    expect(edges).toEqual(['begin→Message:first', 'Message:first→Message:second']);
    expect(errors).toEqual([]);
  });
});
