/**
 * The peers benchmark's harness runs: `npm run bench -- peers --quick` boots every peer in its own
 * process, runs each shape on it, and prints a row per shape with a figure (or a "cannot: …")
 * for every peer. Sizes are tiny and nothing is asserted about speed.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function runQuickBench(): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', 'bench/peers.ts', '--quick'], {
    cwd: root,
    // A killed worker's model call is retried after the heartbeat timeout: short here, so the crash shape is quick.
    env: { ...process.env, ACTIVITY_HEARTBEAT_TIMEOUT_MS: '3000' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, out })));
}

describe('npm run bench -- peers --quick', () => {
  it('prints a row per shape with a figure or a reason for every peer', { timeout: 1_500_000 }, async () => {
    const { code, out } = await runQuickBench();
    expect(code, out).toBe(0);
    const table = out.slice(out.indexOf('| measure |'));
    const header = table.split('\n')[0]!;
    for (const peer of [
      'agent-canvas (PGlite)',
      'agent-canvas (PostgreSQL)',
      'LangGraph (PostgreSQL, sync)',
      'LangGraph (SQLite)',
      'Mastra (LibSQL)',
      'DBOS (PostgreSQL)',
    ])
      expect(header).toContain(peer);
    const rows = table.split('\n').filter((l) => /^\| \([a-d]\)/.test(l));
    for (const shape of [
      '(a) overhead per model node',
      '(a) runs/s',
      '(b) 10-item map, concurrency 32',
      '(c) memory per paused run',
      '(c) resume',
      '(d) killed mid-run',
    ])
      expect(
        rows.some((r) => r.startsWith(`| ${shape}`)),
        `${shape} row in\n${table}`,
      ).toBe(true);
    // Every cell is a figure, "yes"/"no", or says why there is none; none failed.
    for (const row of rows) {
      const cells = row
        .split('|')
        .slice(2, -1)
        .map((c) => c.trim());
      expect(cells, row).toHaveLength(6);
      for (const cell of cells) expect(cell, row).toMatch(/^(-?\d+(\.\d+)?( \(-?\d+\.\d+×\))?|yes|cannot: .+)$/);
    }
  });
});
