/**
 * The shutdown plan every role runs: steps in order, each bounded by what is left of the
 * timeout, a failing or hanging step reported in one line without stopping the rest.
 */
import { describe, expect, it } from 'vitest';
import { runShutdown } from '../../server/boot/shutdown';

describe('runShutdown', () => {
  it('runs drain then release steps in order and exits 0 when all finish', async () => {
    const order: string[] = [];
    const said: string[] = [];
    const step = (name: string) => ({ name, run: async () => void order.push(name) });
    const code = await runShutdown(
      { drain: [step('http'), step('worker')], release: [step('store'), step('server')] },
      { timeoutMs: 5000, say: (l) => said.push(l) },
    );
    expect(code).toBe(0);
    expect(order).toEqual(['http', 'worker', 'store', 'server']);
    expect(said).toEqual([]);
  });

  it('gives up on a step that hangs, names it, still closes the rest, and exits 1', async () => {
    const order: string[] = [];
    const said: string[] = [];
    const code = await runShutdown(
      {
        drain: [{ name: 'the worker', run: () => new Promise(() => {}) }],
        release: [
          {
            name: 'the store',
            run: async () => {
              throw new Error('already closed');
            },
          },
          { name: 'the server', run: async () => void order.push('server') },
        ],
      },
      { timeoutMs: 1000, say: (l) => said.push(l) },
    );
    expect(code).toBe(1);
    expect(order).toEqual(['server']);
    expect(said).toEqual(['agent-canvas: stopping the worker: did not finish within 1000 ms', 'agent-canvas: stopping the store: already closed']);
  });
});
