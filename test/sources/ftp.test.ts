import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FtpSource } from '../../src/sources/index.js';
import { leakForms } from '../helpers/cli.js';
import type { Failure } from '../helpers/rejection.js';
import { connectSource, expectNoSecretIn } from '../helpers/source-session.js';
import { createCa, issueServer, type Authority } from '../peers/certificates.js';
import { ftpConfiguration, start, type VsftpdPeer } from '../peers/vsftpd.js';
import { ownFailures, warningsIn, type OwnFailure } from '../helpers/source-failures.js';
import { sourceConformance } from './conformance.js';

/**
 * The ftp source against a real vsftpd (test/peers/vsftpd.ts): explicit FTPS (the default),
 * implicit FTPS, plain FTP by name, anonymous login, the sftp source's client surface; the failures
 * every source owes through the conformance suite, and FTP's own as rows of FAILURES.
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
});

afterAll(async () => {
  await Promise.all([explicit, implicit, plain, strict, mismatch].map((peer) => peer?.stop()));
});

const configuration = (peer: VsftpdPeer, extra: Record<string, string> = {}) =>
  ftpConfiguration(peer, ca.certificatePem, { probe_path: 'upload', ...extra });
const connect = (config: Record<string, string>) => connectSource<FtpSource>(config, 'ftp');

function expectClean(error: Failure, lines: string[]): void {
  expectNoSecretIn(error, lines, [...leakForms(explicit.password), ...leakForms(WRONG)]);
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
      expect(warningsIn(lines)).toEqual([]);
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
      expect(warningsIn(lines)).toEqual([]);
    } finally {
      await auth.close();
    }
  });

  it('plain FTP only by name (ftp_tls=none), warned on every run', async () => {
    const { auth, lines } = await connect(configuration(plain, { ftp_tls: 'none', tls_ca_certificate: '' }));
    try {
      expect((await auth.probe()).target).toBe(`ftp://cauth-ftp@127.0.0.1:${plain.port} (no TLS)`);
      expect((await auth.source.readFile('upload/orders.csv')).toString()).toBe(ORDERS);
      expect(warningsIn(lines)).toEqual([
        'ftp_tls=none: the connection to 127.0.0.1 is not encrypted; the password and every file cross the network in clear',
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

/**
 * What every source owes (test/sources/conformance.ts): the probe, each wrong credential, nothing
 * listening, a silent server, each untrusted identity, and through the CLI the leak check with
 * HOSTILE_SECRET as the wrong password over stdout, stderr, files/ and the warehouse. FTP sends the
 * password as one command line, so the hostile secret goes without its line break (a password with
 * one is refused before anything is sent: below).
 */
sourceConformance({
  source: 'ftp',
  good: () => configuration(explicit),
  outcome: 'FTP list upload: 2 entries',
  probeLine: () => `ftps://cauth-ftp@127.0.0.1:${explicit.port} (AUTH TLS) → FTP list upload: 2 entries`,
  upserts: 2,
  wrongCredentials: [
    {
      name: 'a wrong password',
      config: (wrong) => configuration(explicit, { password: oneLine(wrong) }),
      key: 'password',
      code: 'ftp_login_rejected',
      message: () =>
        `password auth: ftps://cauth-ftp@127.0.0.1:${explicit.port} (AUTH TLS) failed: the server rejected the password for user 'cauth-ftp' (530 Login incorrect.)`,
      hint: ["check 'password'", "'username'"],
    },
    {
      name: 'an unknown user (the server answers as for a wrong password)',
      config: () => configuration(explicit, { username: 'nobody-here' }),
      key: 'password',
      code: 'ftp_login_rejected',
    },
  ],
  unreachable: {
    config: (port) => configuration(explicit, { port: String(port) }),
    key: 'host',
    code: 'econnrefused',
    message: { contains: ['connection refused'] },
  },
  silent: (port) => configuration(explicit, { port: String(port), timeout_seconds: '0.5' }),
  untrusted: [
    {
      name: 'an untrusted certificate (no tls_ca_certificate)',
      config: () => configuration(explicit, { tls_ca_certificate: '' }),
      key: 'tls_ca_certificate',
      code: 'tls_untrusted',
    },
    {
      name: 'a certificate for another name',
      config: () => configuration(mismatch),
      key: 'host',
      code: 'tls_host_mismatch',
    },
    {
      name: 'explicit FTPS to a server without TLS',
      config: () => configuration(plain),
      key: 'ftp_tls',
      code: 'ftp_tls_not_offered',
    },
  ],
  secrets: () => [explicit.password, WRONG],
  connector: `import { defineConnector } from 'connector-auth';
export default defineConnector({
  source: 'ftp',
  schema: () => [{ table: 'files', primary_key: ['name'] }],
  async update({ configuration, source, op }) {
    for (const entry of await source.list(configuration.probe_path)) await op.upsert('files', { name: entry.name, type: entry.type, size: entry.size });
    await op.checkpoint({ done: true });
  },
});
`,
});

/** The failures of FTP's own: the TLS choice, the probe's directory, a password FTP cannot send. */
const FAILURES: OwnFailure[] = [
  {
    name: 'probe_path that does not exist',
    config: () => configuration(explicit, { probe_path: 'no-such-dir' }),
    exitCode: 4,
    code: 'ftp_probe_path_missing',
    key: 'probe_path',
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
  {
    name: 'a password with a line break (it would end the PASS command and start another)',
    config: () => configuration(explicit, { password: 'first-line\r\nDELE upload/orders.csv' }),
    exitCode: 2,
    code: 'ftp_password_line_break',
    key: 'password',
  },
];

ownFailures('ftp', FAILURES, expectClean);

/** The hostile secret as one line: FTP cannot carry a line break in a password. */
function oneLine(secret: string): string {
  return secret.replace(/[\r\n]/g, '');
}
