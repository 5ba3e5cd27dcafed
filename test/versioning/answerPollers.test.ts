/**
 * Which workers can take a form answer (api/services/runWorkers.ts): the pollers as the dev
 * server lists them (1.29.1: every version's pollers on the queue, each with its deployment
 * options). A pinned run whose version has no fresh poller while other versions poll is answered
 * 503 at once (issue 38, item 4) instead of waiting for its workers to come back.
 */
import { describe, expect, it } from 'vitest';
import { pollersVerdict, type ListedPoller } from '../../api/services/runWorkers';

const NOW = 1_800_000_000_000;
const polled = (agoS: number, buildId?: string): ListedPoller => ({
  lastAccessTime: { seconds: String(Math.floor(NOW / 1000) - agoS) },
  ...(buildId ? { deploymentOptions: { buildId }, workerVersionCapabilities: { buildId } } : {}),
});
const A = { deploymentName: 'agent-canvas', buildId: 'A' };

describe('which pollers can take a run’s answer', () => {
  it('finds none when nobody polls, or only pollers gone quiet for over a minute', () => {
    expect(pollersVerdict([], null, NOW)).toEqual({ kind: 'none', version: 'unversioned' });
    expect(pollersVerdict([polled(120)], null, NOW)).toEqual({ kind: 'none', version: 'unversioned' });
  });

  it('takes any fresh poller for an unversioned run', () => {
    expect(pollersVerdict([polled(5)], null, NOW)).toEqual({ kind: 'some' });
  });

  it('takes a fresh poller of the pinned run’s own version', () => {
    expect(pollersVerdict([polled(5, 'B'), polled(20, 'A')], A, NOW)).toEqual({ kind: 'some' });
  });

  it('finds none for a pinned run when only other versions poll (its own workers retired)', () => {
    expect(pollersVerdict([polled(5, 'B'), polled(200, 'A')], A, NOW)).toEqual({ kind: 'none', version: 'agent-canvas:A' });
  });

  it('cannot tell when a poller names no version: the answer’s bounded wait decides', () => {
    expect(pollersVerdict([polled(5, 'B'), polled(5)], A, NOW)).toEqual({ kind: 'unknown' });
  });
});
