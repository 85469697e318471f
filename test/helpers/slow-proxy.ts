import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

/**
 * A TCP proxy on 127.0.0.1 in front of a real peer that slows down what the peer sends back: each
 * chunk is held `delayMs` (a bastion that answers slowly), and with `throttle` the bytes are let
 * through `bytes` at a time every `everyMs` (a body slower than the client's deadline). What the
 * client sends goes through at once, and the bytes' order is kept. Both can be changed while it
 * runs, e.g. a fast login, then slow channels.
 */
export interface SlowProxy {
  host: string;
  port: number;
  delayMs: number;
  throttle: { bytes: number; everyMs: number } | undefined;
  /** Connections the proxy has open now (client side). */
  open(): number;
  close(): Promise<void>;
}

export async function slowProxy(
  upstreamPort: number,
  options: { delayMs?: number; throttle?: { bytes: number; everyMs: number } } = {},
): Promise<SlowProxy> {
  const sockets = new Set<Socket>();
  const clients = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const server = createServer((client) => {
    const upstream = connect(upstreamPort, '127.0.0.1');
    sockets.add(client).add(upstream);
    clients.add(client);
    // What the upstream sent, in order, each part with the time it is due (never before the part
    // ahead of it); one timer at a time drains it, so no part can overtake another.
    const queue: { at: number; send: () => void }[] = [];
    let lastDue = 0;
    let pending: NodeJS.Timeout | undefined;
    const drain = () => {
      if (pending) timers.delete(pending);
      pending = undefined;
      while (queue.length > 0 && queue[0]!.at <= Date.now()) queue.shift()!.send();
      if (queue.length > 0) timers.add((pending = setTimeout(drain, queue[0]!.at - Date.now())));
    };
    const later = (at: number, send: () => void) => {
      lastDue = Math.max(at, lastDue);
      queue.push({ at: lastDue, send });
      if (!pending) drain();
    };
    upstream.on('data', (chunk: Buffer) => {
      const slice = proxy.throttle?.bytes ?? chunk.length;
      for (let at = 0; at < chunk.length; at += slice) {
        const part = chunk.subarray(at, at + slice);
        later(Math.max(Date.now() + proxy.delayMs, lastDue + (proxy.throttle?.everyMs ?? 0)), () => client.write(part));
      }
    });
    upstream.on('end', () => later(Date.now() + proxy.delayMs, () => client.end()));
    client.pipe(upstream);
    for (const [socket, other] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      socket.on('error', () => other.destroy());
      socket.on('close', () => {
        sockets.delete(socket);
        clients.delete(socket);
        // The client gone, nothing more to send it; the upstream gone, what it sent still goes out.
        if (socket === client) other.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxy: SlowProxy = {
    host: '127.0.0.1',
    port: (server.address() as AddressInfo).port,
    delayMs: options.delayMs ?? 0,
    throttle: options.throttle,
    open: () => clients.size,
    async close() {
      for (const timer of timers) clearTimeout(timer);
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return proxy;
}
