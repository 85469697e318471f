import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FtpSource } from '../../src/sources/index.js';
import { leakForms } from '../helpers/cli.js';
import type { Failure } from '../helpers/rejection.js';
import {
  connectSource,
  expectNoSecretIn,
  probeFailure as probeFailureOf,
  silentServer,
} from '../helpers/source-session.js';
import { createCa, issueServer, type Authority } from '../peers/certificates.js';
import { freePort } from '../peers/daemon.js';
import { ftpConfiguration, start, type VsftpdPeer } from '../peers/vsftpd.js';

/**
 * The ftp source against a real vsftpd (test/peers/vsftpd.ts): explicit FTPS (the default),
 * implicit FTPS, plain FTP by name, anonymous login, the sftp source's client surface, and every
 * failure as one row of FAILURES (configuration → exit code, error code, key), the shape a shared
 * source conformance suite takes.
 */

const WRONG = 'Wr0ng/+ftp?&y';
const ORDERS = 'id,amount\n1,10\n2,20\n';

let ca: Authority;
/** Explicit FTPS offered (not required), anonymous allowed. */
let explicit: VsftpdPeer;
let implicit: VsftpdPeer;
/** No TLS at all. */
let plain: VsftpdPeer;
/** Explicit FTPS that refuses logins without it. */
let strict: VsftpdPeer;
/** Explicit FTPS with a certificate for another name. */
let mismatch: VsftpdPeer;

beforeAll(async () => {
  ca = createCa();
  const certificate = issueServer(ca, { hosts: ['127.0.0.1'] });
  const elsewhere = issueServer(ca, { hosts: ['files.example.test'] });
  [explicit, implicit, plain, strict, mismatch] = await Promise.all([
    start({ tls: 'explicit', certificate, anonymous: true }),
    start({ tls: 'implicit', certificate }),
    start({ tls: 'none' }),
    start({ tls: 'explicit', certificate, requireTls: true }),
    start({ tls: 'explicit', certificate: elsewhere }),
  ]);
  for (const peer of [explicit, implicit, plain, strict, mismatch]) {
    await mkdir(join(peer.dataDir, 'upload', 'archive'), { recursive: true });
    await writeFile(join(peer.dataDir, 'upload', 'orders.csv'), ORDERS);
  }
}, 30_000);

afterAll(async () => {
  await Promise.all([explicit, implicit, plain, strict, mismatch].map((peer) => peer?.stop()));
});

const configuration = (peer: VsftpdPeer, extra: Record<string, string> = {}) =>
  ftpConfiguration(peer, ca.certificatePem, { probe_path: 'upload', ...extra });
const connect = (config: Record<string, string>) => connectSource<FtpSource>(config, 'ftp');
const probeFailure = (config: Record<string, string>) => probeFailureOf(config, 'ftp');

function expectClean(error: Failure, lines: string[]): void {
  expectNoSecretIn(error, lines, [...leakForms(explicit.password), ...leakForms(WRONG)]);
}

function warnings(lines: string[]): string[] {
  return lines
    .map((l) => JSON.parse(l) as { level: string; message: string })
    .filter((l) => l.level === 'WARNING')
    .map((l) => l.message);
}

describe('ftp source, logins', () => {
  it('explicit FTPS: the probe lists probe_path once; update() gets list, stat, readFile and a stream on the same session', async () => {
    const { auth, lines, registry } = await connect(configuration(explicit));
    try {
      const before = await explicit.connections();
      const probe = await auth.probe();
      expect(probe.target).toBe(`ftps://cauth-ftp@127.0.0.1:${explicit.port} (AUTH TLS)`);
      expect(probe.outcome).toBe('FTP list upload: 2 entries');
      const entries = await auth.source.list('upload');
      expect(entries.map((e) => [e.name, e.type, e.size]).sort()).toEqual([
        ['archive', 'directory', expect.any(Number)],
        ['orders.csv', 'file', ORDERS.length],
      ]);
      const stat = await auth.source.stat('upload/orders.csv');
      expect(stat).toMatchObject({ type: 'file', size: ORDERS.length });
      expect(stat.modifiedAt).toBeInstanceOf(Date);
      expect(Math.abs(stat.modifiedAt!.getTime() - Date.now())).toBeLessThan(120_000);
      expect(await auth.source.stat('upload/archive')).toMatchObject({ type: 'directory' });
      expect((await auth.source.readFile('upload/orders.csv')).toString()).toBe(ORDERS);
      let streamed = '';
      for await (const chunk of await auth.source.createReadStream('upload/orders.csv')) streamed += String(chunk);
      expect(streamed).toBe(ORDERS);
      // Calls made at once queue on the one session.
      const [a, b] = await Promise.all([auth.source.readFile('upload/orders.csv'), auth.source.list('upload')]);
      expect([a.length, b.length]).toEqual([ORDERS.length, 2]);
      expect((await explicit.connections()) - before).toBe(1);
      // vsftpd logs the protocol with PASS masked; the TLS upgrade happened before the login.
      expect(await explicit.log()).toMatch(/"AUTH TLS"[\s\S]*"USER cauth-ftp"/);
      expect(registry.contains(explicit.password)).toBe(true);
      expect(warnings(lines)).toEqual([]);
    } finally {
      await auth.close();
    }
  });

  it('implicit FTPS on its own port', async () => {
    const { auth, lines } = await connect(configuration(implicit, { ftp_tls: 'implicit' }));
    try {
      const probe = await auth.probe();
      expect(probe.target).toBe(`ftps://cauth-ftp@127.0.0.1:${implicit.port} (implicit TLS)`);
      expect(probe.outcome).toBe('FTP list upload: 2 entries');
      expect((await auth.source.readFile('upload/orders.csv')).toString()).toBe(ORDERS);
      expect(warnings(lines)).toEqual([]);
    } finally {
      await auth.close();
    }
  });

  it('plain FTP only by name (ftp_tls=none), warned on every run', async () => {
    const { auth, lines } = await connect(configuration(plain, { ftp_tls: 'none', tls_ca_certificate: '' }));
    try {
      expect((await auth.probe()).target).toBe(`ftp://cauth-ftp@127.0.0.1:${plain.port} (no TLS)`);
      expect((await auth.source.readFile('upload/orders.csv')).toString()).toBe(ORDERS);
      expect(warnings(lines)).toEqual([
        'ftp_tls=none: plain FTP to 127.0.0.1; the password and every file cross the network in clear (use explicit or implicit FTPS)',
      ]);
    } finally {
      await auth.close();
    }
  });

  it('anonymous: username anonymous, an e-mail address as the password', async () => {
    const { auth } = await connect(
      configuration(explicit, { username: 'anonymous', password: 'connector@example.com', probe_path: '.' }),
    );
    try {
      expect((await auth.probe()).outcome).toBe('FTP list . (login directory): 1 entry');
    } finally {
      await auth.close();
    }
  });

  it("a file that is not there: the connector's error (exit 1) with the path", async () => {
    const { auth } = await connect(configuration(explicit));
    try {
      await auth.probe();
      await expect(auth.source.readFile('upload/missing.csv')).rejects.toMatchObject({
        exitCode: 1,
        code: 'ftp_no_such_file',
      });
      const stream = await auth.source.createReadStream('upload/missing.csv');
      await expect(
        new Promise((resolve, reject) => stream.on('error', reject).on('end', resolve).resume()),
      ).rejects.toMatchObject({ exitCode: 1, code: 'ftp_no_such_file' });
      // The session still serves.
      expect((await auth.source.list('upload')).length).toBe(2);
    } finally {
      await auth.close();
    }
  });
});

interface FailureCase {
  name: string;
  config: () => Promise<Record<string, string>> | Record<string, string>;
  exitCode: number;
  code: string;
  key: string;
  message?: () => string;
}

const FAILURES: FailureCase[] = [
  {
    name: 'wrong password',
    config: () => configuration(explicit, { password: WRONG }),
    exitCode: 3,
    code: 'ftp_login_rejected',
    key: 'password',
    message: () =>
      `password auth: ftps://cauth-ftp@127.0.0.1:${explicit.port} (AUTH TLS) failed: the server rejected the password for user 'cauth-ftp' (530 Login incorrect.)`,
  },
  {
    name: 'unknown user (the server answers as for a wrong password)',
    config: () => configuration(explicit, { username: 'nobody-here' }),
    exitCode: 3,
    code: 'ftp_login_rejected',
    key: 'password',
  },
  {
    name: 'probe_path that does not exist',
    config: () => configuration(explicit, { probe_path: 'no-such-dir' }),
    exitCode: 4,
    code: 'ftp_probe_path_missing',
    key: 'probe_path',
  },
  {
    name: 'nothing listens',
    config: async () => configuration(explicit, { port: String(await freePort()) }),
    exitCode: 4,
    code: 'econnrefused',
    key: 'host',
  },
  {
    name: 'untrusted certificate (no tls_ca_certificate)',
    config: () => configuration(explicit, { tls_ca_certificate: '' }),
    exitCode: 5,
    code: 'tls_untrusted',
    key: 'tls_ca_certificate',
  },
  {
    name: 'certificate for another name',
    config: () => configuration(mismatch),
    exitCode: 5,
    code: 'tls_host_mismatch',
    key: 'host',
  },
  {
    name: 'explicit FTPS to a server without TLS',
    config: () => configuration(plain),
    exitCode: 5,
    code: 'ftp_tls_not_offered',
    key: 'ftp_tls',
  },
  {
    name: 'plain FTP to a server that requires TLS',
    config: () => configuration(strict, { ftp_tls: 'none', tls_ca_certificate: '' }),
    exitCode: 2,
    code: 'ftp_tls_required',
    key: 'ftp_tls',
  },
  {
    name: 'implicit FTPS to a server that greets in plain text',
    config: () => configuration(explicit, { ftp_tls: 'implicit' }),
    exitCode: 4,
    code: 'ftp_tls_handshake_failed',
    key: 'ftp_tls',
  },
  {
    name: 'tls_skip_verify with plain FTP',
    config: () => configuration(plain, { ftp_tls: 'none', tls_skip_verify: 'true' }),
    exitCode: 2,
    code: 'tls_skip_verify_without_tls',
    key: 'tls_skip_verify',
  },
];

describe('ftp source, failures: one line naming the key, no secret anywhere', () => {
  for (const failure of FAILURES) {
    it(failure.name, async () => {
      const { error, lines } = await probeFailure(await failure.config());
      expect({ exitCode: error.exitCode, code: error.code, key: error.key }, error.message).toEqual({
        exitCode: failure.exitCode,
        code: failure.code,
        key: failure.key,
      });
      if (failure.message) expect(error.message).toBe(failure.message());
      expectClean(error, lines);
    });
  }

  it('a server that accepts the connection and never greets: exit 4 naming timeout_seconds', async () => {
    const silent = await silentServer();
    try {
      const { error, lines } = await probeFailure(
        configuration(explicit, { port: String(silent.port), timeout_seconds: '1' }),
      );
      expect([error.exitCode, error.key]).toEqual([4, 'timeout_seconds']);
      expectClean(error, lines);
    } finally {
      silent.close();
    }
  });
});
