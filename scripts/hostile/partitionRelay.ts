/**
 * A TCP relay between one worker and Temporal that can partition them: while cut, nothing the
 * relay receives is passed on (either way, on open connections and on new ones), as when the
 * network between them drops packets; on heal, what was held is delivered in order, as TCP's
 * retransmissions would once the path is back. Connections either side gave up on meanwhile stay
 * closed. The worker's other peers (PostgreSQL, the model) are not behind it.
 */
import net from 'node:net';

export interface PartitionRelay {
  address: string;
  cut(): void;
  heal(): void;
  close(): void;
}

interface Pipe {
  from: net.Socket;
  to: net.Socket;
  held: Buffer[];
}

export async function startPartitionRelay(target: string): Promise<PartitionRelay> {
  const cutAt = target.lastIndexOf(':');
  const [host, port] = [target.slice(0, cutAt), Number(target.slice(cutAt + 1))];
  let partitioned = false;
  const pipes = new Set<Pipe>();
  const sockets = new Set<net.Socket>();
  const pass = (pipe: Pipe, chunk: Buffer) => {
    if (partitioned) pipe.held.push(chunk);
    else if (!pipe.to.destroyed) pipe.to.write(chunk);
  };
  const server = net.createServer((inbound) => {
    const outbound = net.connect(port, host);
    sockets.add(inbound).add(outbound);
    const up: Pipe = { from: inbound, to: outbound, held: [] };
    const down: Pipe = { from: outbound, to: inbound, held: [] };
    pipes.add(up).add(down);
    inbound.on('data', (c: Buffer) => pass(up, c));
    outbound.on('data', (c: Buffer) => pass(down, c));
    const end = () => {
      inbound.destroy();
      outbound.destroy();
      pipes.delete(up);
      pipes.delete(down);
      sockets.delete(inbound);
      sockets.delete(outbound);
    };
    inbound.on('error', end).on('close', end);
    outbound.on('error', end).on('close', end);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    address: `127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    cut: () => void (partitioned = true),
    heal: () => {
      partitioned = false;
      for (const pipe of pipes) for (const chunk of pipe.held.splice(0)) if (!pipe.to.destroyed) pipe.to.write(chunk);
    },
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}
