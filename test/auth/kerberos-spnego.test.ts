import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate } from '../../src/connector/index.js';
import { cli, initTemplate, readTree } from '../helpers/cli.js';
import { start as startApache, type ApacheGssapiPeer } from '../peers/apache-gssapi.js';
import { freePort } from '../peers/daemon.js';
import * as kdc from '../peers/kdc.js';
import { expectNothingOf, keytabLeakForms, leftoverKrb5Dirs, probeVerdict } from './kerberos-support.js';

/**
 * The kerberos method with the rest source: SPNEGO (`Authorization: Negotiate`, RFC 4559) against
 * Apache's mod_auth_gssapi, a real acceptor holding the service keytab of `HTTP/127.0.0.1` from a
 * realm the test makes. Runs go through the built CLI. The access log names the principal Apache
 * authenticated for each request.
 *
 * Mutual authentication is shown against servers on 127.0.0.1 that are not Apache: one that answers
 * 200 to any Negotiate header, and a relay that forwards the first request to Apache and then
 * answers the next ones itself with the token Apache sent that first time (a replay).
 */

const REALM = kdc.REALM;
let realm: kdc.KdcPeer;
let web: ApacheGssapiPeer;
let root: string;
const keytabs: Record<string, Buffer> = {};

beforeAll(async () => {
  realm = await kdc.start();
  for (const name of ['alice', 'bob', 'carol', 'dave', 'HTTP/127.0.0.1']) {
    await realm.addPrincipal(name);
    keytabs[name] = await realm.keytab(name);
  }
  await realm.deletePrincipal('bob');
  await realm.changeKey('carol');
  web = await startApache({
    keytab: keytabs['HTTP/127.0.0.1']!,
    krb5Config: await readFile(realm.krb5Config, 'utf8'),
    files: { health: '{"ok":true}', items: '[{"id":1,"name":"one"},{"id":2,"name":"two"},{"id":3,"name":"three"}]' },
  });
  root = await mkdtemp(join(tmpdir(), 'connector-auth-kerberos-http-'));
});

afterAll(async () => {
  await Promise.all([web?.stop(), realm?.stop()]);
  await rm(root, { recursive: true, force: true });
});

const configuration = (principal: string, keytab: string, extra: Record<string, string> = {}) => ({
  auth_method: 'kerberos',
  kerberos_principal: `${principal}@${REALM}`,
  kerberos_keytab: keytabs[keytab]!.toString('base64'),
  kerberos_realm_kdc: realm.address,
  base_url: web.baseUrl,
  probe_path: 'health',
  items_path: 'items',
  ...extra,
});

let projects = 0;
const project = (values: Record<string, string>) =>
  initTemplate(root, `p${projects++}`, 'rest-api', values, { replaceConfiguration: true, auth: ['kerberos'] });

/** A server on 127.0.0.1 that answers every request with `answer(req)`; it counts what it was sent. */
async function impostor(
  answer: (req: IncomingMessage) => Promise<{ status: number; headers: Record<string, string>; body: string }>,
): Promise<{ url: string; negotiated: () => number; close: () => Promise<void> }> {
  let negotiated = 0;
  const server: Server = createServer((req, res) => {
    if (/^Negotiate /.test(req.headers.authorization ?? '')) negotiated++;
    void answer(req).then(({ status, headers, body }) => res.writeHead(status, headers).end(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    negotiated: () => negotiated,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** One request to Apache as the relay forwards it: the same path and Authorization header. */
function forwardToApache(
  req: IncomingMessage,
): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  return new Promise((resolve, reject) => {
    const out = httpRequest(
      new URL(req.url ?? '/', web.baseUrl),
      { headers: { authorization: req.headers.authorization ?? '' } },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
        res.on('end', () => {
          const headers: Record<string, string> = { 'content-type': 'application/json' };
          if (res.headers['www-authenticate']) headers['www-authenticate'] = String(res.headers['www-authenticate']);
          resolve({ status: res.statusCode ?? 502, headers, body });
        });
      },
    );
    out.once('error', reject).end();
  });
}

const JSON_OK = { 'content-type': 'application/json' };

describe('kerberos → rest (SPNEGO Negotiate) against a real KDC and Apache mod_auth_gssapi', () => {
  it('a keytab file (kerberos_keytab_path): debug syncs, Apache saw alice on every request, nothing leaks', async () => {
    const file = join(root, 'alice.keytab');
    await writeFile(file, keytabs.alice!, { mode: 0o600 });
    const before = await leftoverKrb5Dirs();
    const { kerberos_keytab: _inline, ...rest } = configuration('alice', 'alice');
    const dir = await project({ ...rest, kerberos_keytab_path: file });
    const seen = (await web.accessLog()).length;
    const run = await cli(['debug', dir]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Upserts\s+\|\s+3/);
    expect(await web.accessLog(seen + 2)).toEqual(
      expect.arrayContaining([`alice@${REALM} GET /health 200`, `alice@${REALM} GET /items 200`]),
    );
    expectNothingOf(
      [run.stdout, run.stderr, await readTree(join(dir, 'files'))],
      keytabLeakForms(realm, file, keytabs.alice!),
    );
    expect(await leftoverKrb5Dirs()).toEqual(before);
  });

  it('unknown principal: exit 3 naming kerberos_principal, no request reaches Apache', async () => {
    const seen = (await web.accessLog()).length;
    const verdict = await probeVerdict(await project(configuration('bob', 'bob')), configuration('bob', 'bob'));
    expect(verdict.run.code, verdict.run.stderr).toBe(3);
    expect([verdict.code, verdict.key]).toEqual(['kerberos_unknown_principal', 'kerberos_principal']);
    expect((await web.accessLog()).length).toBe(seen);
  });

  it('wrong keytab: exit 3 naming kerberos_keytab', async () => {
    const values = configuration('carol', 'carol');
    const verdict = await probeVerdict(await project(values), values);
    expect(verdict.run.code, verdict.run.stderr).toBe(3);
    expect([verdict.code, verdict.key]).toEqual(['kerberos_keytab_rejected', 'kerberos_keytab']);
  });

  it('KDC unreachable: exit 4 naming kerberos_realm_kdc', async () => {
    const values = configuration('alice', 'alice', { kerberos_realm_kdc: `127.0.0.1:${await freePort()}` });
    const verdict = await probeVerdict(await project(values), values);
    expect(verdict.run.code, verdict.run.stderr).toBe(4);
    expect([verdict.code, verdict.key]).toEqual(['kerberos_kdc_unreachable', 'kerberos_realm_kdc']);
  });

  it('a host the realm has no HTTP service for: exit 3 naming base_url', async () => {
    const values = configuration('alice', 'alice', { base_url: web.baseUrl.replace('127.0.0.1', 'localhost') });
    const verdict = await probeVerdict(await project(values), values);
    expect(verdict.run.code, verdict.run.stderr).toBe(3);
    expect([verdict.code, verdict.key]).toEqual(['kerberos_unknown_service', 'base_url']);
  });

  it('the acceptor unreachable: exit 4', async () => {
    const values = configuration('alice', 'alice', { base_url: `http://127.0.0.1:${await freePort()}/` });
    const verdict = await probeVerdict(await project(values), values);
    expect(verdict.run.code, verdict.run.stderr).toBe(4);
  });

  it('doctor: a keytab file other users can read is an error naming the file; mode 0600 is fine', async () => {
    const file = join(root, 'doctor.keytab');
    await writeFile(file, keytabs.alice!);
    const { kerberos_keytab: _inline, ...rest } = configuration('alice', 'alice');
    const dir = await project({ ...rest, kerberos_keytab_path: file });
    const modeFindings = async () => {
      const run = await cli(['doctor', dir, '--json']);
      const report = JSON.parse(run.stdout) as { findings: { check: string; where?: string; severity: string }[] };
      return report.findings.filter((f) => f.check === 'file-readable-by-others' && f.where === file);
    };
    await chmod(file, 0o644);
    expect(await modeFindings()).toEqual([expect.objectContaining({ severity: 'error' })]);
    await chmod(file, 0o600);
    expect(await modeFindings()).toEqual([]);
  });

  it('mutual authentication: a server that answers 200 without proving it is HTTP/127.0.0.1 is refused (exit 5, base_url)', async () => {
    const fake = await impostor(async (req) => ({
      status: 200,
      headers: JSON_OK,
      body: req.url === '/items' ? '[{"id":1,"name":"made up"}]' : '{"ok":true}',
    }));
    try {
      const values = configuration('alice', 'alice', { base_url: fake.url });
      const verdict = await probeVerdict(await project(values), values);
      expect(verdict.run.code, verdict.run.stderr).toBe(5);
      expect([verdict.code, verdict.key]).toEqual(['kerberos_mutual_authentication_failed', 'base_url']);
      expect(verdict.message).toMatch(/without the Negotiate token that proves it is 'HTTP\/127\.0\.0\.1'/);
      // The ticket was fetched and sent: the refusal is of the answer, after the request.
      expect(fake.negotiated()).toBe(1);
    } finally {
      await fake.close();
    }
  });

  it('an error answer is reported as its status, its token not taken for an impostor: a 401 is exit 3', async () => {
    const refusing = await impostor(async () => ({
      status: 401,
      headers: { ...JSON_OK, 'www-authenticate': 'Negotiate oRQwEqADCgEC' },
      body: '{"error":"unauthorized"}',
    }));
    try {
      const values = configuration('alice', 'alice', { base_url: refusing.url });
      const verdict = await probeVerdict(await project(values), values);
      expect(verdict.run.code, verdict.run.stderr).toBe(3);
      expect(verdict.code).not.toBe('kerberos_mutual_authentication_failed');
      expect(verdict.message).toMatch(/401/);
    } finally {
      await refusing.close();
    }
  });

  it("mutual authentication: Apache's token replayed by a relay for a later request is refused mid-run; nothing is written", async () => {
    let recorded: string | undefined;
    const relay = await impostor(async (req) => {
      if (recorded === undefined) {
        const answer = await forwardToApache(req);
        recorded = answer.headers['www-authenticate'];
        return answer;
      }
      return {
        status: 200,
        headers: { ...JSON_OK, 'www-authenticate': recorded },
        body: '[{"id":1,"name":"made up"}]',
      };
    });
    try {
      const dir = await project(configuration('alice', 'alice', { base_url: relay.url }));
      const run = await cli(['debug', dir, '--json']);
      expect(recorded, 'Apache proved itself to the probe').toMatch(/^Negotiate \S+/);
      expect(run.code, run.stderr).toBe(5);
      expect(run.stdout + run.stderr).toMatch(/"code":"kerberos_mutual_authentication_failed"/);
      expect(run.stdout + run.stderr).toMatch(/Negotiate token does not prove it is 'HTTP\/127\.0\.0\.1'/);
      expect(run.stdout + run.stderr).not.toMatch(/made up/);
      const tree = await readTree(join(dir, 'files'));
      expect(tree).not.toMatch(/made up/);
    } finally {
      await relay.close();
    }
  });

  it('kerberos_skip_mutual_authentication "true": the same server is believed, with a warning on the run', async () => {
    const fake = await impostor(async () => ({ status: 200, headers: JSON_OK, body: '{"ok":true}' }));
    try {
      const values = configuration('alice', 'alice', {
        base_url: fake.url,
        kerberos_skip_mutual_authentication: 'true',
      });
      const dir = await project(values);
      const verdict = await probeVerdict(dir, values);
      expect(verdict.run.code, verdict.run.stderr).toBe(0);
      expect(verdict.run.stdout + verdict.run.stderr).toMatch(/kerberos_skip_mutual_authentication is \\?"true\\?"/);
      // doctor names the choice too, as it does tls_skip_verify.
      const doctor = await cli(['doctor', dir, '--json']);
      const report = JSON.parse(doctor.stdout) as { findings: { check: string; key?: string }[] };
      expect(report.findings).toContainEqual(
        expect.objectContaining({ check: 'verification-off', key: 'kerberos_skip_mutual_authentication' }),
      );
    } finally {
      await fake.close();
    }
  });

  it('two Kerberos configurations in one process (as `serve` may hold): every request goes as its own principal', async () => {
    // The GSS-API reads its keytab, cache and krb5.conf from the process environment: each
    // credential's calls take turns with its own settings there, and closing one leaves the other's.
    const seen = (await web.accessLog()).length;
    const krb5Variables = () => ['KRB5_CONFIG', 'KRB5_CLIENT_KTNAME', 'KRB5CCNAME'].map((name) => process.env[name]);
    const [variablesBefore, dirsBefore] = [krb5Variables(), await leftoverKrb5Dirs()];
    const [a, d] = await Promise.all([
      authenticate(configuration('alice', 'alice'), { source: 'rest' }),
      authenticate(configuration('dave', 'dave'), { source: 'rest' }),
    ]);
    try {
      const calls = Array.from({ length: 6 }, () => [a.source.json('health'), d.source.json('items')]).flat();
      await Promise.all(calls);
      await a.close();
      await d.source.json('items');
    } finally {
      await Promise.all([a.close(), d.close()]);
    }
    const lines = (await web.accessLog(seen + 13)).slice(seen).sort();
    expect(lines).toEqual([
      ...Array.from({ length: 6 }, () => `alice@${REALM} GET /health 200`),
      ...Array.from({ length: 7 }, () => `dave@${REALM} GET /items 200`),
    ]);
    // Between calls, and after both closed, the process's environment and temp directory are as they were.
    expect(krb5Variables()).toEqual(variablesBefore);
    expect(await leftoverKrb5Dirs()).toEqual(dirsBefore);
  });
});
