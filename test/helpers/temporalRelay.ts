/**
 * A TCP relay to Temporal for crash tests: it forwards until `freeze()`, then holds what the app
 * sends (so starts in flight never reach the server, nor their answers the app) and counts the
 * markers it held (`seen`), so a test can kill the app with a known number of starts in flight.
 */
import net from 'node:net';

export interface TemporalRelay {
  address: string;
  freeze(): void;
  /** Distinct matches of `marker` in what was held since the freeze. */
  seen(marker: RegExp): number;
  close(): void;
}

export async function startRelay(target: string): Promise<TemporalRelay> {
  const [host, port] = [target.slice(0, target.lastIndexOf(':')), Number(target.slice(target.lastIndexOf(':') + 1))];
  let frozen = false;
  let held = '';
  const sockets = new Set<net.Socket>();
  const server = net.createServer((inbound) => {
    const outbound = net.connect(port, host);
    sockets.add(inbound).add(outbound);
    inbound.on('data', (chunk: Buffer) => {
      if (frozen) held += chunk.toString('latin1');
      else outbound.write(chunk);
    });
    outbound.on('data', (chunk: Buffer) => {
      if (!frozen) inbound.write(chunk);
    });
    const end = () => {
      inbound.destroy();
      outbound.destroy();
    };
    inbound.on('error', end).on('close', end);
    outbound.on('error', end).on('close', end);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    address: `127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    freeze: () => void (frozen = true),
    seen: (marker) => new Set(held.match(marker) ?? []).size,
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}
