import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
 */

const REALM = kdc.REALM;
let realm: kdc.KdcPeer;
let web: ApacheGssapiPeer;
let root: string;
const keytabs: Record<string, Buffer> = {};

beforeAll(async () => {
  realm = await kdc.start();
  for (const name of ['alice', 'bob', 'carol', 'HTTP/127.0.0.1']) {
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
}, 60_000);

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
  initTemplate(root, `p${projects++}`, 'rest-api', values, { replaceConfiguration: true });

describe('kerberos → rest (SPNEGO Negotiate) against a real KDC and Apache mod_auth_gssapi', () => {
  it('a keytab file (kerberos_keytab_path): debug syncs, Apache saw alice on every request, nothing leaks', async () => {
    const file = join(root, 'alice.keytab');
    await writeFile(file, keytabs.alice!, { mode: 0o600 });
    const before = await leftoverKrb5Dirs();
    const { kerberos_keytab: _inline, ...rest } = configuration('alice', 'alice');
    const dir = await project({ ...rest, kerberos_keytab_path: file });
    const run = await cli(['debug', dir]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Upserts\s+\|\s+3/);
    expect(await web.accessLog()).toEqual(
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
});
