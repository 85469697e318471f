import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, initTemplate, readTree } from '../helpers/cli.js';
import { createCa, issueServer, type Authority } from '../peers/certificates.js';
import { freePort } from '../peers/daemon.js';
import * as kdc from '../peers/kdc.js';
import { start as startPostgres, type PostgresPeer } from '../peers/postgres.js';
import {
  expectNothingOf,
  keytabLeakForms,
  kinit,
  leftoverKrb5Dirs,
  probeVerdict,
  type Verdict,
} from './kerberos-support.js';

/**
 * The kerberos method with the postgres source against a real MIT realm (krb5kdc made by the test)
 * and a real PostgreSQL 15 whose pg_hba.conf says `gss` (its service keytab from the same realm),
 * over TLS (verify-full): every run goes through the built CLI, as a user's would, so the Kerberos
 * environment it sets is its own process's.
 */

const PASSWORD = 'Pg-admin-pw-7d2e';
const REALM = kdc.REALM;
let realm: kdc.KdcPeer;
let skewed: kdc.KdcPeer;
let ca: Authority;
let server: PostgresPeer;
let root: string;
const keytabs: Record<string, Buffer> = {};

beforeAll(async () => {
  [realm, skewed] = await Promise.all([kdc.start(), kdc.start({ clockOffset: '+2h' })]);
  for (const name of ['alice', 'bob', 'carol', 'mallory', 'dave', 'postgres/127.0.0.1']) await realm.addPrincipal(name);
  for (const name of ['alice', 'bob', 'carol', 'mallory', 'dave', 'postgres/127.0.0.1'])
    keytabs[name] = await realm.keytab(name);
  await realm.deletePrincipal('bob'); // bob's keytab now names a principal the KDC does not know
  await realm.changeKey('carol'); // carol's keytab holds a key the KDC no longer has
  await skewed.addPrincipal('alice');
  keytabs['skewed-alice'] = await skewed.keytab('alice');
  ca = createCa();
  const certificate = issueServer(ca, { hosts: ['127.0.0.1'] });
  server = await startPostgres({
    password: PASSWORD,
    database: 'sales',
    ssl: { certificatePem: certificate.certificatePem, privateKeyPem: certificate.privateKeyPem },
    gss: { keytab: keytabs['postgres/127.0.0.1']!, realm: REALM, users: ['alice', 'bob', 'carol', 'dave'] },
  });
  // The database template's table, loaded by the superuser (scram over TLS), readable by alice and dave.
  const admin = new pg.Client({
    host: server.host,
    port: server.port,
    user: server.user,
    password: PASSWORD,
    database: 'sales',
    ssl: { ca: ca.certificatePem },
  });
  await admin.connect();
  await admin.query(
    "create table public.orders (id bigint primary key, status text, updated_at timestamptz); insert into public.orders select i, 'open', now() from generate_series(1, 7) i; grant select on public.orders to alice, dave",
  );
  await admin.end();
  root = await mkdtemp(join(tmpdir(), 'connector-auth-kerberos-pg-'));
});

afterAll(async () => {
  await Promise.all([server?.stop(), realm?.stop(), skewed?.stop()]);
  await rm(root, { recursive: true, force: true });
});

let projects = 0;
async function project(): Promise<string> {
  const dir = join(root, `p${projects++}`);
  await mkdir(dir);
  await writeFile(
    join(dir, 'connector.ts'),
    "import { defineConnector } from 'connector-auth';\nexport default defineConnector({ source: 'postgres', schema: () => [], async update() {} });\n",
  );
  return dir;
}

function configuration(principal: string, keytab: string, extra: Record<string, string> = {}) {
  return {
    auth_method: 'kerberos',
    kerberos_principal: `${principal}@${REALM}`,
    kerberos_keytab: keytabs[keytab]!.toString('base64'),
    kerberos_realm_kdc: realm.address,
    host: '127.0.0.1',
    port: String(server.port),
    database: 'sales',
    user: principal,
    sslmode: 'verify-full',
    tls_ca_certificate: ca.certificatePem,
    ...extra,
  };
}

async function verdictOf(configurationValues: Record<string, string>, env: NodeJS.ProcessEnv = {}): Promise<Verdict> {
  return probeVerdict(await project(), configurationValues, env);
}

describe('kerberos → postgres (GSSAPI) against a real KDC and PostgreSQL', () => {
  it('a keytab: debug syncs the table as alice, no keytab form anywhere, the temp keytab removed', async () => {
    const before = await leftoverKrb5Dirs();
    const dir = await initTemplate(root, 'database', 'database', {
      ...configuration('alice', 'alice'),
      table: 'public.orders',
    });
    const run = await cli(['debug', dir]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Upserts\s+\|\s+7/);
    expect(server.log()).toMatch(
      /connection authorized: user=alice .*GSS \(authenticated=yes.*principal=alice@CONNECTOR\.TEST\)/,
    );
    const file = join(root, 'alice.keytab');
    await writeFile(file, keytabs.alice!);
    const forms = keytabLeakForms(realm, file, keytabs.alice!);
    expectNothingOf([run.stdout, run.stderr, await readTree(join(dir, 'files'))], forms);
    expect(await leftoverKrb5Dirs()).toEqual(before);
  });

  it('an existing credential cache (kinit), no keytab in the configuration', async () => {
    const file = join(root, 'dave.keytab');
    await writeFile(file, keytabs.dave!);
    const cache = `FILE:${join(root, 'dave.ccache')}`;
    kinit(realm, file, `dave@${REALM}`, cache);
    const { kerberos_keytab: _dropped, ...rest } = configuration('dave', 'dave');
    const verdict = await verdictOf({ ...rest, kerberos_credential_cache: cache });
    expect(verdict.run.code, verdict.run.stderr).toBe(0);
    expect(verdict.run.stdout).toContain('SELECT 1');
  });

  it('unknown principal: exit 3 naming kerberos_principal', async () => {
    const verdict = await verdictOf(configuration('bob', 'bob'));
    expect(verdict.run.code, verdict.run.stderr).toBe(3);
    expect([verdict.code, verdict.key]).toEqual(['kerberos_unknown_principal', 'kerberos_principal']);
    expect(verdict.message).toContain(`bob@${REALM}`);
  });

  it('wrong keytab (the key was changed since): exit 3 naming kerberos_keytab', async () => {
    const verdict = await verdictOf(configuration('carol', 'carol'));
    expect(verdict.run.code, verdict.run.stderr).toBe(3);
    expect([verdict.code, verdict.key]).toEqual(['kerberos_keytab_rejected', 'kerberos_keytab']);
  });

  it('a principal the keytab does not hold: exit 2 before the network, naming kerberos_principal', async () => {
    const verdict = await verdictOf(configuration('alice', 'carol'));
    expect(verdict.run.code, verdict.run.stderr).toBe(2);
    expect([verdict.code, verdict.key]).toEqual(['kerberos_principal_not_in_keytab', 'kerberos_principal']);
    expect(verdict.message).not.toContain(keytabs.carol!.toString('base64'));
  });

  it('KDC unreachable: exit 4 naming kerberos_realm_kdc', async () => {
    const closed = await freePort();
    const verdict = await verdictOf(configuration('alice', 'alice', { kerberos_realm_kdc: `127.0.0.1:${closed}` }));
    expect(verdict.run.code, verdict.run.stderr).toBe(4);
    expect([verdict.code, verdict.key]).toEqual(['kerberos_kdc_unreachable', 'kerberos_realm_kdc']);
  });

  it('expired ticket in the credential cache: exit 3 naming kerberos_credential_cache', async () => {
    const file = join(root, 'dave-short.keytab');
    await writeFile(file, keytabs.dave!);
    const cache = `FILE:${join(root, 'dave-short.ccache')}`;
    kinit(realm, file, `dave@${REALM}`, cache, '2s');
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const { kerberos_keytab: _dropped, ...rest } = configuration('dave', 'dave');
    const verdict = await verdictOf({ ...rest, kerberos_credential_cache: cache });
    expect(verdict.run.code, verdict.run.stderr).toBe(3);
    expect([verdict.code, verdict.key]).toEqual(['kerberos_ticket_expired', 'kerberos_credential_cache']);
  });

  it("clock skew (the KDC's clock 2 h ahead, kdc_timesync off in krb5.conf): exit 3, kerberos_clock_skew", async () => {
    // MIT's default (kdc_timesync = 1) follows the KDC's clock by itself; a realm whose krb5.conf
    // turns that off meets the skew. The realm's KDC comes from that krb5.conf, not from a key.
    const profile = join(root, 'timesync-off.conf');
    await writeFile(
      profile,
      `[libdefaults]\n  default_realm = ${REALM}\n  kdc_timesync = 0\n  dns_lookup_kdc = false\n[realms]\n  ${REALM} = {\n    kdc = ${skewed.address}\n  }\n`,
    );
    const { kerberos_realm_kdc: _none, ...rest } = configuration('alice', 'skewed-alice');
    const verdict = await verdictOf(rest, { KRB5_CONFIG: profile });
    expect(verdict.run.code, verdict.run.stderr).toBe(3);
    expect(verdict.code).toBe('kerberos_clock_skew');
  });

  it("a valid ticket for a principal that is not the role: exit 3 from the server's refusal", async () => {
    const verdict = await verdictOf({ ...configuration('mallory', 'mallory'), user: 'alice' });
    expect(verdict.run.code, verdict.run.stderr).toBe(3);
    expect([verdict.code, verdict.key]).toEqual(['postgres_gss_rejected', 'kerberos_principal']);
  });

  it('PostgreSQL unreachable: exit 4 naming host or port', async () => {
    const verdict = await verdictOf(configuration('alice', 'alice', { port: String(await freePort()) }));
    expect(verdict.run.code, verdict.run.stderr).toBe(4);
  });

  it('untrusted server certificate: exit 5 before any ticket is shown to the server', async () => {
    const { tls_ca_certificate: _none, ...rest } = configuration('alice', 'alice');
    const verdict = await verdictOf(rest);
    expect(verdict.run.code, verdict.run.stderr).toBe(5);
  });
});
