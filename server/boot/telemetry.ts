/**
 * The process's Temporal runtime (one per process, installed before any connection) and where its
 * metrics go. The SDK's Rust core has its own Prometheus exporter; we bind it to a loopback port
 * and /metrics appends its text to ours (src/io/metrics/exposition.ts), so every process has one
 * scrape target. The port is loopback-only on purpose: nothing outside needs to reach it.
 */
import { DefaultLogger, Runtime, type LogLevel } from '@temporalio/worker';
import { setTemporalSdkMetricsUrl } from '../../src/io/metrics/exposition';

export interface TemporalRuntimeOptions {
  level: LogLevel;
  /** Loopback port of the SDK's Prometheus exporter; null: no SDK metrics (an API-only process has no worker to measure). */
  sdkMetricsPort: number | null;
}

/**
 * Installs the runtime: SDK logs at `level` (the bundler's build report is noise on every start),
 * no SDK signal handlers (`shutdownSignals: []`: boot/shutdown.ts stops the worker; with both,
 * `shutdown()` ran twice and threw `IllegalStateError ... DRAINING`), and the metrics exporter.
 * Returns whether this call installed it (a runtime installed earlier, e.g. by tests, is kept).
 */
export function installTemporalRuntime(opts: TemporalRuntimeOptions): boolean {
  const bindAddress = opts.sdkMetricsPort !== null ? `127.0.0.1:${opts.sdkMetricsPort}` : null;
  const install = (metricsAt: string | null) =>
    Runtime.install({
      logger: new DefaultLogger(opts.level),
      shutdownSignals: [],
      ...(metricsAt ? { telemetryOptions: { metrics: { prometheus: { bindAddress: metricsAt } } } } : {}),
    });
  try {
    install(bindAddress);
  } catch {
    // A runtime exists already (tests install their own), or the exporter could not bind. In the
    // second case a runtime without metrics still beats the SDK's default one, whose signal
    // handlers would stop the worker a second time.
    if (bindAddress === null) return false;
    try {
      install(null);
    } catch {
      return false;
    }
    setTemporalSdkMetricsUrl(null);
    return true;
  }
  setTemporalSdkMetricsUrl(bindAddress ? `http://${bindAddress}/metrics` : null);
  return true;
}
