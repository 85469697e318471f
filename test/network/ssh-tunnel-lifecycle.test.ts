import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareSshTunnel, sshTunnelKeys, type SshTunnel } from '../../src/network/index.js';
import { rejection } from '../helpers/rejection.js';
import { slowProxy, type SlowProxy } from '../helpers/slow-proxy.js';
import { until } from '../helpers/source-session.js';
import { start as startSshd, type SshdPeer } from '../peers/sshd.js';

/**
 * The SSH tunnel's life cycle against a real OpenSSH bastion (test/peers/sshd.ts, TCP forwarding on)
 * reached through a proxy that can hold back what the bastion sends (test/helpers/slow-proxy.ts): a
 * close() while the login is still under way, and a source that gives up on a connection before the
 * bastion has opened its channel. Either must leave nothing behind: no listener, no SSH connection,
 * no channel, no socket, nothing that keeps the process alive.
 */

let bastion: SshdPeer;
/** Between the tunnel and the bastion; fast unless a test slows it down. */
let proxy: SlowProxy;
/**
 * The tunnel's destination: echoes what it gets, and like a server awaiting its client's next
 * request it keeps its side open after the client's EOF, so a channel only ends when it is closed.
 */
let destination: { port: number; server: Server; sockets: Set<Socket> };

beforeAll(async () => {
  // DEBUG1: sshd logs each forwarded channel it opens and frees.
  bastion = await startSshd({ allowTcpForwarding: true, logLevel: 'DEBUG1' });
  proxy = await slowProxy(bastion.port);
  const sockets = new Set<Socket>();
  const server = createServer({ allowHalfOpen: true }, (socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
    socket.pipe(socket, { end: false });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  destination = { port: (server.address() as AddressInfo).port, server, sockets };
});

afterAll(async () => {
  for (const socket of destination?.sockets ?? []) socket.destroy();
  destination?.server.close();
  await proxy?.close();
  await bastion?.stop();
});

async function tunnel(): Promise<SshTunnel> {
  const keys = sshTunnelKeys.parse({
    ssh_tunnel_host: proxy.host,
    ssh_tunnel_port: String(proxy.port),
    ssh_tunnel_user: bastion.user,
    ssh_tunnel_password: bastion.password,
    ssh_tunnel_host_key_fingerprint: bastion.hostKeyFingerprint,
  });
  const quiet = { warning: () => undefined, info: () => undefined, debug: () => undefined };
  return (await prepareSshTunnel(
    keys,
    { host: '127.0.0.1', port: destination.port },
    { timeoutSeconds: 10, log: quiet, secrets: { register: () => undefined } },
  ))!;
}

/** Forwarded channels sshd has freed so far (`channel 3: free: direct-tcpip, nchannels 1`). */
function channelsFreed(): number {
  return bastion
    .log()
    .split(/\r?\n/)
    .filter((line) => /channel \d+: free: direct-tcpip/.test(line)).length;
}

/** The process's TCP handles (listeners and sockets) by kind: what a tunnel could leave behind. */
function handles(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo())
    if (kind.startsWith('TCP')) counts[kind] = (counts[kind] ?? 0) + 1;
  return counts;
}

/** Waits until the handles are back to `before`, then says they are. */
async function expectHandlesBackTo(before: Record<string, number>): Promise<void> {
  await until(() => JSON.stringify(handles()) === JSON.stringify(before));
  expect(handles()).toEqual(before);
}

describe('ssh tunnel, close() and open()', () => {
  it('close() during a slow login: open() fails as closed, no listener is made, nothing is left running', async () => {
    const before = handles();
    const connections = bastion.connections();
    // Every answer of the bastion held 300 ms: the login's round trips take well over a second.
    proxy.delayMs = 300;
    try {
      const t = await tunnel();
      const opening = rejection(t.open());
      await until(() => proxy.open() === 1);
      await new Promise((r) => setTimeout(r, 200));
      await t.close();
      const error = await opening;
      expect(error.code).toBe('ssh_tunnel_already_closed');
      // A closed tunnel stays closed: no new login either.
      expect((await rejection(t.open())).code).toBe('ssh_tunnel_already_closed');
      await until(() => proxy.open() === 0);
      expect(proxy.open()).toBe(0);
      await expectHandlesBackTo(before);
      await new Promise((r) => setTimeout(r, 500));
      expect(bastion.connections()).toBe(connections + 1);
    } finally {
      proxy.delayMs = 0;
    }
  });

  it('a source that closes its connection before the bastion opened the channel: the channel is closed too', async () => {
    const before = handles();
    const t = await tunnel();
    try {
      const local = await t.open();
      // The login done, the channel's confirmation is what comes back slowly now.
      proxy.delayMs = 800;
      const [opened, freed] = [bastion.channelsTo(destination.port), channelsFreed()];
      const gaveUp = connect(local.port, local.host);
      gaveUp.on('error', () => undefined);
      gaveUp.on('connect', () => setTimeout(() => gaveUp.destroy(), 100));
      await until(() => bastion.channelsTo(destination.port) === opened + 1);
      expect(bastion.channelsTo(destination.port)).toBe(opened + 1);
      // The confirmation arrives some 700 ms after the socket closed; the channel is closed then.
      await until(() => channelsFreed() === freed + 1);
      expect(channelsFreed()).toBe(freed + 1);

      // The tunnel still carries a connection that stays.
      proxy.delayMs = 0;
      const echoed = await new Promise<string>((resolve, reject) => {
        const socket = connect(local.port, local.host, () => socket.write('ping'));
        socket.on('error', reject);
        socket.once('data', (data) => {
          socket.destroy();
          resolve(data.toString());
        });
      });
      expect(echoed).toBe('ping');
      // ... and closes its channel once the source closes the connection.
      await until(() => channelsFreed() === freed + 2);
      expect(channelsFreed()).toBe(freed + 2);
    } finally {
      proxy.delayMs = 0;
      await t.close();
    }
    await until(() => proxy.open() === 0);
    // The destination's own sockets stay half open by design (see above): not the tunnel's to close.
    for (const socket of destination.sockets) socket.destroy();
    await expectHandlesBackTo(before);
  });
});
