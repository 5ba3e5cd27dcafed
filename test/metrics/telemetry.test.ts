/**
 * The Temporal runtime's metrics exporter when its port is taken: the runtime is still installed
 * (ours, without SDK metrics, rather than the SDK's default whose signal handlers would stop the
 * worker twice), and /metrics does not pass off whatever holds that port as Temporal's series.
 * Runtime.install is once per process: this file installs it and nothing else here runs Temporal.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { Runtime } from '@temporalio/worker';
import { installTemporalRuntime } from '../../server/boot/telemetry';
import { metricsPage } from '../../src/io/metrics/exposition';

const squatter = http.createServer((_req, res) => res.end('squatter_series 1\n'));
await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', () => resolve()));
afterAll(() => new Promise<void>((resolve) => squatter.close(() => resolve())));

describe('installTemporalRuntime', () => {
  it('installs a runtime without SDK metrics when the exporter cannot bind, and /metrics stays ours', async () => {
    const port = (squatter.address() as AddressInfo).port;
    expect(installTemporalRuntime({ level: 'ERROR', sdkMetricsPort: port })).toBe(true);
    expect(Runtime.instance().options.shutdownSignals).toEqual([]);
    const page = await metricsPage();
    expect(page.body).toContain('# TYPE agent_canvas_runs_started_total counter');
    expect(page.body).not.toContain('squatter_series');
    // Once per process: a second install is refused and reported, not thrown.
    expect(installTemporalRuntime({ level: 'ERROR', sdkMetricsPort: null })).toBe(false);
  });
});
