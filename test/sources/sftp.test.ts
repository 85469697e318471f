import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ssh2 from 'ssh2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAuthMethod } from '../../src/auth/index.js';
import { authenticate, type SourceClients } from '../../src/connector/index.js';
import { createLogger } from '../../src/log/index.js';
import { SecretRegistry } from '../../src/secrets/index.js';
import type { SftpSource } from '../../src/sources/index.js';
import { cli, leakForms } from '../helpers/cli.js';
import { rejection, type Failure } from '../helpers/rejection.js';
import { sourceConformance } from './conformance.js';
import {
  connectSource,
  expectNoSecretIn,
  pemLines,
  probeFailure as probeFailureOf,
  recordingLogger,
  until,
} from '../helpers/source-session.js';
import {
  generateKeyPair,
  sftpConfiguration,
  sftpKeyConfiguration,
  start,
  type SshKeyPair,
  type SshdPeer,
} from '../peers/sshd.js';

/**
 * The sftp source against a real OpenSSH server (test/peers/sshd.ts): password and key logins,
 * encrypted keys, the host key check and its opt-out, unreachable servers and probe paths, and no
 * form of any secret in any error or log line.
 */

const WRONG_PASSWORD = 'Wr0ng/+sftp?&y';
const PASSPHRASE = 'Key-Pass/+phrase?&z';

let peer: SshdPeer;
/** Public-key login only: a password login is refused before the password is checked. */
let keysOnly: SshdPeer;
let ed25519: SshKeyPair;
let rsaEncrypted: SshKeyPair;
let rsaPemEncrypted: SshKeyPair;
/** Valid, but not in authorized_keys. */
let stranger: SshKeyPair;
let upload: string;

beforeAll(async () => {
  [ed25519, rsaEncrypted, rsaPemEncrypted, stranger] = await Promise.all([
    generateKeyPair({ type: 'ed25519' }),
    generateKeyPair({ type: 'rsa', passphrase: PASSPHRASE, rounds: 4 }),
    generateKeyPair({ type: 'rsa', passphrase: PASSPHRASE, format: 'pem' }),
    generateKeyPair({ type: 'ed25519' }),
  ]);
  const authorizedKeys = [ed25519.publicKey, rsaEncrypted.publicKey, rsaPemEncrypted.publicKey];
  [peer, keysOnly] = await Promise.all([
    start({ authorizedKeys }),
    start({ authorizedKeys, passwordAuthentication: false }),
  ]);
  upload = join(peer.dataDir, 'upload');
  await mkdir(join(upload, 'archive'), { recursive: true });
  await writeFile(join(upload, 'orders.csv'), 'id,amount\n1,10\n2,20\n');
  await symlink('orders.csv', join(upload, 'latest.csv'));
  // Owned by root, mode 0700: the test user may not list it.
  await mkdir(join(peer.dataDir, 'private'), { mode: 0o700 });
});

afterAll(async () => {
  await Promise.all([peer?.stop(), keysOnly?.stop()]);
});

/** Logins to `server` that list `upload` unless told otherwise. */
const configuration = (server: SshdPeer, extra: Record<string, string> = {}) =>
  sftpConfiguration(server, { probe_path: upload, ...extra });
const keyConfiguration = (server: SshdPeer, key: SshKeyPair, extra: Record<string, string> = {}) =>
  sftpKeyConfiguration(server, key, { probe_path: upload, ...extra });

const connect = (config: Record<string, string>) => connectSource<SftpSource>(config, 'sftp');
const probeFailure = (config: Record<string, string>) => probeFailureOf(config, 'sftp');

/** The secrets the configurations hold: the passwords and the passphrase. */
const secrets = () => [PASSWORD_OF_PEER(), WRONG_PASSWORD, PASSPHRASE];

/** Each private key's PEM lines, and its decrypted form's. */
function keyMaterial(): string[] {
  const all: string[] = [];
  for (const key of [ed25519, rsaEncrypted, rsaPemEncrypted, stranger]) {
    all.push(...pemLines(key.privateKey));
    const parsed = ssh2.utils.parseKey(key.privateKey, PASSPHRASE);
    if (!(parsed instanceof Error))
      all.push(...pemLines((Array.isArray(parsed) ? parsed[0]! : parsed).getPrivatePEM()));
  }
  return all;
}

/** Every text a secret could leak through: each secret's forms, and each whole private key's. */
function secretForms(): string[] {
  const keys = [ed25519, rsaEncrypted, rsaPemEncrypted, stranger].map((key) => key.privateKey);
  return [...secrets(), ...keyMaterial(), ...keys].flatMap((secret) => leakForms(secret));
}
const PASSWORD_OF_PEER = () => peer.password;

/** One line, a hint, and no form of any secret anywhere a person could read. */
function expectClean(error: Failure, lines: string[]): void {
  expectNoSecretIn(error, lines, secretForms());
}

function warnings(lines: string[]): string[] {
  return lines
    .map((l) => JSON.parse(l) as { level: string; message: string })
    .filter((l) => l.level === 'WARNING')
    .map((l) => l.message);
}

describe('sftp source, logins', () => {
  it('password: the probe lists probe_path once; update() gets list, stat, readFile and a stream', async () => {
    const { auth, lines } = await connect(configuration(peer));
    try {
      const before = peer.connections();
      const probe = await auth.probe();
      expect(probe.target).toBe(`sftp://cauth-sftp@127.0.0.1:${peer.port}`);
      expect(probe.outcome).toBe(`SFTP list ${upload}: 3 entries`);
      expect(auth.credential.description).toBe('password auth');

      const entries = await auth.source.list(upload);
      expect(entries.map((e) => [e.name, e.type]).sort()).toEqual([
        ['archive', 'directory'],
        ['latest.csv', 'symlink'],
        ['orders.csv', 'file'],
      ]);
      const orders = entries.find((e) => e.name === 'orders.csv')!;
      expect(orders.size).toBe(20);
      expect(orders.modifiedAt).toBeInstanceOf(Date);
      expect(await auth.source.stat(join(upload, 'latest.csv'))).toMatchObject({ type: 'file', size: 20 });
      expect((await auth.source.readFile(join(upload, 'orders.csv'))).toString()).toBe('id,amount\n1,10\n2,20\n');
      let streamed = '';
      for await (const chunk of await auth.source.createReadStream(join(upload, 'orders.csv')))
        streamed += String(chunk);
      expect(streamed).toBe('id,amount\n1,10\n2,20\n');
      // The probe's connection served update() too.
      expect(peer.connections() - before).toBe(1);
      expect(warnings(lines)).toEqual([]);
    } finally {
      await auth.close();
    }
  });

  it('the default probe_path lists the login directory', async () => {
    const { probe_path: _unused, ...config } = configuration(peer);
    const { auth } = await connect(config);
    try {
      expect((await auth.probe()).outcome).toMatch(/^SFTP list \. \(login directory\): \d+ entr(y|ies)$/);
    } finally {
      await auth.close();
    }
  });

  it('an ed25519 key logs in; the description shows its public fingerprint', async () => {
    const { auth, lines } = await connect(keyConfiguration(peer, ed25519));
    try {
      expect((await auth.probe()).outcome).toBe(`SFTP list ${upload}: 3 entries`);
      expect(auth.credential.description).toBe(`ssh key auth as 'cauth-sftp' (ssh-ed25519 ${ed25519.fingerprint})`);
      expect(JSON.stringify(auth.credential)).not.toContain('PRIVATE');
      expect(warnings(lines)).toEqual([]);
    } finally {
      await auth.close();
    }
  });

  it('RSA keys with a passphrase log in: OpenSSH format and legacy PEM', async () => {
    for (const key of [rsaEncrypted, rsaPemEncrypted]) {
      const { auth } = await connect(keyConfiguration(peer, key, { private_key_passphrase: PASSPHRASE }));
      try {
        expect((await auth.probe()).outcome).toBe(`SFTP list ${upload}: 3 entries`);
      } finally {
        await auth.close();
      }
    }
  });

  it('a key pasted with literal \\n sequences is read', async () => {
    const { auth } = await connect(
      keyConfiguration(peer, ed25519, { private_key: ed25519.privateKey.trim().replace(/\n/g, '\\n') }),
    );
    try {
      expect((await auth.probe()).outcome).toContain('3 entries');
    } finally {
      await auth.close();
    }
  });

  it('a password for a server that takes keys only: exit 3 naming auth_method', async () => {
    const { error, lines } = await probeFailure(configuration(keysOnly, { probe_path: '.' }));
    expect(error.exitCode).toBe(3);
    expect(error.code).toBe('ssh_method_not_offered');
    expect(error.key).toBe('auth_method');
    expect(error.message).toContain("does not accept password logins for user 'cauth-sftp' (it offers publickey)");
    expect(error.hint).toContain('ssh_key');
    expectClean(error, lines);
    // The same server, with a key it knows.
    const { auth } = await connect(keyConfiguration(keysOnly, ed25519, { probe_path: '.' }));
    try {
      await auth.probe();
    } finally {
      await auth.close();
    }
  });
});

describe('sftp source, the private key is checked before any connection', () => {
  const before = async (config: Record<string, string>) => {
    const connections = peer.connections();
    const lines: string[] = [];
    const error = await rejection(
      authenticate(config, {
        source: 'sftp' as keyof SourceClients,
        registry: new SecretRegistry(),
        log: recordingLogger(lines),
      }),
    );
    expect(peer.connections()).toBe(connections);
    expectClean(error, lines);
    return error;
  };

  it('a wrong passphrase: exit 2 naming private_key_passphrase (both key formats)', async () => {
    for (const key of [rsaEncrypted, rsaPemEncrypted]) {
      const error = await before(keyConfiguration(peer, key, { private_key_passphrase: WRONG_PASSWORD }));
      expect(error.exitCode).toBe(2);
      expect(error.code).toBe('ssh_key_passphrase_wrong');
      expect(error.key).toBe('private_key_passphrase');
    }
  });

  it('a missing passphrase: exit 2 naming private_key_passphrase', async () => {
    const error = await before(keyConfiguration(peer, rsaEncrypted));
    expect(error.exitCode).toBe(2);
    expect(error.code).toBe('ssh_key_passphrase_missing');
    expect(error.key).toBe('private_key_passphrase');
  });

  it('a damaged key, a public key or no key: exit 2 naming private_key', async () => {
    const lines = ed25519.privateKey.split('\n');
    const damaged = [...lines.slice(0, 2), lines[2]!.replace(/[A-Za-z]/g, 'A'), ...lines.slice(3)].join('\n');
    const cases: [string, string][] = [
      [damaged, 'ssh_key_unreadable'],
      [ed25519.privateKey.slice(0, 200), 'ssh_key_unreadable'],
      ['not a key at all, just text', 'ssh_key_unreadable'],
      [ed25519.publicKey, 'ssh_key_not_private'],
    ];
    for (const [privateKey, code] of cases) {
      const error = await before(keyConfiguration(peer, ed25519, { private_key: privateKey }));
      expect(error.exitCode, code).toBe(2);
      expect(error.code).toBe(code);
      expect(error.key).toBe('private_key');
    }
    const missing = await before(keyConfiguration(peer, ed25519, { private_key: '' }));
    expect(missing.key).toBe('private_key');
  });
});

describe('sftp source, host key', () => {
  it("a host key other than host_key_fingerprint: no credential is sent (the rest is the conformance suite's)", async () => {
    const logBefore = peer.log().length;
    const { error } = await probeFailure(configuration(peer, { host_key_fingerprint: stranger.fingerprint }));
    expect(error.exitCode).toBe(5);
    // sshd's log arrives through a pipe: wait for the connection's line before reading what followed it.
    await until(() => peer.log().slice(logBefore).includes('Connection from 127.0.0.1'));
    expect(peer.log().slice(logBefore)).toContain('Connection from 127.0.0.1');
    expect(peer.log().slice(logBefore)).not.toMatch(/password|publickey/);
  });

  it('several fingerprints (a key rotation): any one of them passes', async () => {
    const { auth } = await connect(
      configuration(peer, { host_key_fingerprint: `${stranger.fingerprint}, ${peer.hostKeyFingerprint}` }),
    );
    try {
      await auth.probe();
    } finally {
      await auth.close();
    }
  });

  it('no host_key_fingerprint: exit 2 before any connection, the hint shows how to get it', async () => {
    const connections = peer.connections();
    const error = await rejection(
      authenticate(configuration(peer, { host_key_fingerprint: '' }), {
        source: 'sftp' as keyof SourceClients,
        registry: new SecretRegistry(),
      }),
    );
    expect(error.exitCode).toBe(2);
    expect(error.code).toBe('ssh_host_key_fingerprint_missing');
    expect(error.key).toBe('host_key_fingerprint');
    expect(error.hint).toContain(`ssh-keyscan -p ${peer.port} 127.0.0.1 | ssh-keygen -lf -`);
    expect(peer.connections()).toBe(connections);
  });

  it('ssh_skip_host_key_check=true: connects, with a warning naming the server, and the key it presented at info', async () => {
    const { auth, lines } = await connect(
      configuration(peer, { host_key_fingerprint: '', ssh_skip_host_key_check: 'true' }),
    );
    try {
      await auth.probe();
      expect(warnings(lines)).toEqual([
        `SSH host key checking is OFF for sftp://cauth-sftp@127.0.0.1:${peer.port} (ssh_skip_host_key_check=true): anyone on the path can pose as the server and receive the credential`,
      ]);
      expect(
        lines.some((l) => l.includes(`presented host key ssh-ed25519 ${peer.hostKeyFingerprint} (not checked)`)),
      ).toBe(true);
    } finally {
      await auth.close();
    }
  });

  it('a fingerprint and the opt-out together, a malformed or MD5 fingerprint: exit 2', async () => {
    const cases: [Record<string, string>, string, RegExp][] = [
      [{ ssh_skip_host_key_check: 'true' }, 'ssh_skip_host_key_check', /both set/],
      [{ host_key_fingerprint: 'SHA256:short' }, 'host_key_fingerprint', /must be a host key fingerprint/],
      [{ host_key_fingerprint: '16:27:ac:a5:76:28:2d:36:63:1b:56:4d:eb:df:a6:48' }, 'host_key_fingerprint', /MD5/],
      [{ ssh_skip_host_key_check: 'maybe' }, 'ssh_skip_host_key_check', /true/],
    ];
    for (const [extra, key, message] of cases) {
      const error = await rejection(
        authenticate(configuration(peer, extra), {
          source: 'sftp' as keyof SourceClients,
          registry: new SecretRegistry(),
        }),
      );
      expect(error.exitCode, key).toBe(2);
      expect(error.key).toBe(key);
      expect(error.message).toMatch(message);
    }
  });
});

describe('sftp source, reaching the server and the probe path', () => {
  it('a host name that does not resolve: exit 4 naming host', async () => {
    const { error, lines } = await probeFailure(configuration(peer, { host: 'no-such-host.invalid' }));
    expect(error.exitCode).toBe(4);
    expect(error.key).toBe('host');
    expect(error.message).toMatch(/host name (not found|lookup failed)/);
    expectClean(error, lines);
  });

  it('a probe_path that does not exist: exit 4 naming probe_path', async () => {
    const { error, lines } = await probeFailure(configuration(peer, { probe_path: '/no/such/dir' }));
    expect(error.exitCode).toBe(4);
    expect(error.code).toBe('sftp_probe_path_missing');
    expect(error.key).toBe('probe_path');
    expect(error.message).toContain('SFTP list /no/such/dir: no such directory');
    expectClean(error, lines);
  });

  it('a probe_path the user may not list: exit 3, access denied, naming username', async () => {
    const path = join(peer.dataDir, 'private');
    const { error, lines } = await probeFailure(configuration(peer, { probe_path: path }));
    expect(error.exitCode).toBe(3);
    expect(error.code).toBe('sftp_permission_denied');
    expect(error.key).toBe('username');
    expect(error.message).toContain(`SFTP list ${path}: permission denied for user 'cauth-sftp'`);
    expect(error.hint).toContain("'probe_path'");
    expectClean(error, lines);
  });

  it("update()'s file errors are the connector's (exit 1), with the path", async () => {
    const { auth } = await connect(configuration(peer));
    try {
      const missing = await rejection(auth.source.readFile(join(upload, 'nope.csv')));
      expect(missing.exitCode).toBe(1);
      expect(missing.code).toBe('sftp_no_such_file');
      expect(missing.message).toBe(
        `sftp://cauth-sftp@127.0.0.1:${peer.port}: SFTP get ${join(upload, 'nope.csv')}: no such file or directory`,
      );
      const stream = await auth.source.createReadStream(join(upload, 'nope.csv'));
      const streamed = await rejection(
        (async () => {
          for await (const _ of stream) void _;
        })(),
      );
      expect(streamed.code).toBe('sftp_no_such_file');
      const denied = await rejection(auth.source.list(join(peer.dataDir, 'private')));
      expect(denied.code).toBe('sftp_permission_denied');
    } finally {
      await auth.close();
    }
  });
});

describe('sftp source, configuration', () => {
  const attempt = (config: Record<string, string>) =>
    rejection(authenticate(config, { source: 'sftp' as keyof SourceClients, registry: new SecretRegistry() }));

  it('names the key that is missing or malformed, before any connection', async () => {
    const connections = peer.connections();
    const cases: [Record<string, string>, string][] = [
      [{ host: '' }, 'host'],
      [{ port: '70000' }, 'port'],
      [{ username: '' }, 'username'],
      [{ password: '' }, 'password'],
      [{ tls_skip_verify: 'true' }, 'tls_skip_verify'],
      [{ auth_method: 'bearer', token: 'tok-abcdef' }, 'auth_method'],
    ];
    for (const [extra, key] of cases) {
      const error = await attempt(configuration(peer, extra));
      expect(error.exitCode, key).toBe(2);
      expect(error.key).toBe(key);
      for (const form of leakForms(peer.password)) expect(error.message).not.toContain(form);
    }
    expect(peer.connections()).toBe(connections);
  });

  it('ssh_key authorizes no HTTP request and is refused by the REST source', async () => {
    const error = await rejection(
      authenticate(
        { auth_method: 'ssh_key', private_key: ed25519.privateKey, base_url: 'https://api.example.com' },
        { registry: new SecretRegistry() },
      ),
    );
    expect(error.exitCode).toBe(2);
    expect(error.key).toBe('auth_method');
    const method = await loadAuthMethod('ssh_key');
    const credential = await method.create(
      { private_key: ed25519.privateKey },
      {
        common: {} as never,
        source: {},
        tls: { hasClientCertificate: false, read: async () => ({ verify: true }) },
        log: createLogger({ write: () => undefined }),
        secrets: new SecretRegistry(),
        now: Date.now,
      },
    );
    // Nothing that could sign an HTTP request: only the SSH key capability.
    expect(credential.httpRequest).toBeUndefined();
    expect(credential.sshKey?.keyType).toBe('ssh-ed25519');
  });

  it('the key, its decrypted form and the passphrase are registered for redaction', async () => {
    const registry = new SecretRegistry();
    await authenticate(keyConfiguration(peer, rsaEncrypted, { private_key_passphrase: PASSPHRASE }), {
      source: 'sftp' as keyof SourceClients,
      registry,
    });
    const parsed = ssh2.utils.parseKey(rsaEncrypted.privateKey, PASSPHRASE) as ssh2.ParsedKey;
    const decryptedLine = pemLines(parsed.getPrivatePEM())[3]!;
    const text = `a ${PASSPHRASE} b ${pemLines(rsaEncrypted.privateKey)[2]} c ${decryptedLine} d`;
    expect(registry.redact(text)).toBe(
      'a <redacted:private_key_passphrase> b <redacted:private_key> c <redacted:private_key> d',
    );
  });
});

/** A connector that lists probe_path into a table. */
const CONNECTOR = `import { defineConnector } from 'connector-auth';
export default defineConnector({
  source: 'sftp',
  schema: () => [{ table: 'files', primary_key: ['name'] }],
  async update({ configuration, source, op }) {
    for (const entry of await source.list(configuration.probe_path)) await op.upsert('files', { name: entry.name, type: entry.type, size: entry.size });
    await op.checkpoint({ done: true });
  },
});
`;

describe('connector-auth CLI with an sftp connector', () => {
  let project: string;
  beforeAll(async () => {
    project = await mkdtemp(join(tmpdir(), 'connector-auth-sftp-project-'));
    await writeFile(join(project, 'connector.ts'), CONNECTOR);
  });
  afterAll(async () => {
    await rm(project, { recursive: true, force: true });
  });

  it('a wrong passphrase is exit 2 naming private_key_passphrase; no secret in any output', async () => {
    await writeFile(
      join(project, 'configuration.json'),
      JSON.stringify(keyConfiguration(peer, rsaEncrypted, { private_key_passphrase: WRONG_PASSWORD })),
    );
    const passphrase = await cli(['probe', project]);
    expect(passphrase.code).toBe(2);
    expect(passphrase.stderr).toContain('private_key_passphrase');
    const output = passphrase.stdout + passphrase.stderr;
    for (const form of secretForms())
      expect(output.includes(form), `a secret form leaked: ${form.slice(0, 12)}…`).toBe(false);
  });
});

sourceConformance({
  source: 'sftp',
  good: () => keyConfiguration(peer, rsaEncrypted, { private_key_passphrase: PASSPHRASE }),
  outcome: () => `SFTP list ${upload}: 3 entries`,
  probeLine: () => `sftp://cauth-sftp@127.0.0.1:${peer.port} → SFTP list ${upload}: 3 entries`,
  upserts: 3,
  wrongCredentials: [
    {
      name: 'a wrong password',
      config: (wrong) => configuration(peer, { password: wrong }),
      key: 'password',
      code: 'ssh_password_rejected',
      message: () =>
        `password auth: sftp://cauth-sftp@127.0.0.1:${peer.port} failed: the server rejected the password for user 'cauth-sftp'`,
      hint: ["check 'password'", "'username'"],
    },
    {
      name: 'a key the server does not know',
      config: () => keyConfiguration(peer, stranger),
      key: 'private_key',
      code: 'ssh_key_rejected',
      message: () => ({
        contains: [
          `(ssh-ed25519 ${stranger.fingerprint}): sftp://cauth-sftp@127.0.0.1:${peer.port} failed: the server did not accept the key for user 'cauth-sftp'`,
        ],
      }),
      hint: 'authorized_keys',
    },
  ],
  unreachable: {
    config: (port) => configuration(peer, { port: String(port) }),
    key: 'host',
    message: { contains: ['connection refused'] },
  },
  silent: (port) => configuration(peer, { port: String(port), timeout_seconds: '0.5' }),
  untrusted: [
    {
      name: 'a host key other than host_key_fingerprint',
      config: () => configuration(peer, { host_key_fingerprint: stranger.fingerprint }),
      key: 'host_key_fingerprint',
      code: 'ssh_host_key_mismatch',
      message: () => ({
        contains: [
          `the server's host key (ssh-ed25519 ${peer.hostKeyFingerprint}) does not match 'host_key_fingerprint' (${stranger.fingerprint})`,
        ],
      }),
      hint: () => peer.hostKeyFingerprint,
    },
  ],
  secrets,
  keyMaterial,
  connector: CONNECTOR,
});
