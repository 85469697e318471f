import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PostgresSource } from '../../src/sources/index.js';
import { start as startMetadata, type CloudMetadataPeer } from '../peers/cloud-metadata.js';
import { PROVIDER_AUDIENCE, STS_AUDIENCE, start as startGoogleSts, type GoogleStsPeer } from '../peers/google-sts.js';
import { startTlsPostgres, type TlsPostgresPeer } from '../peers/postgres-tls.js';
import { leakForms } from '../helpers/cli.js';
import { connectSource, expectNoSecretIn, probeFailure } from '../helpers/source-session.js';

/**
 * A cloud access token as the database password (Cloud SQL IAM database login; Azure Database for
 * PostgreSQL with Entra ID), against a real PostgreSQL 15 over verify-full TLS and the metadata peer.
 *
 * PostgreSQL here cannot validate a cloud token the way Cloud SQL and Azure do; what it can check is
 * that the exact token the identity's metadata service issued is what the source logs in with. So the
 * role's password is set to the token the peer is told to issue, and a token of any other value fails.
 */

const DATABASE = 'app';
const TOKEN = `eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.${randomBytes(48).toString('base64url')}.${randomBytes(24).toString('base64url')}`;

let db: TlsPostgresPeer;
let metadata: CloudMetadataPeer;
let googleSts: GoogleStsPeer;
let tokenDir: string;

beforeAll(async () => {
  [db, metadata, googleSts, tokenDir] = await Promise.all([
    startTlsPostgres({ password: TOKEN, database: DATABASE }),
    startMetadata(),
    startGoogleSts(),
    mkdtemp(join(tmpdir(), 'connector-auth-pg-wif-')),
  ]);
});
afterAll(async () => {
  await Promise.all([db?.stop(), metadata?.stop(), googleSts?.stop(), rm(tokenDir, { recursive: true, force: true })]);
});
afterEach(() => metadata.reset());

const configuration = (extra: Record<string, string>) => ({
  host: db.host,
  port: String(db.port),
  database: DATABASE,
  user: db.user,
  tls_ca_certificate: db.ca.certificatePem,
  metadata_endpoint: metadata.url,
  ...extra,
});

const azure = (extra: Record<string, string> = {}) =>
  configuration({
    auth_method: 'azure_managed_identity',
    resource: 'https://ossrdbms-aad.database.windows.net',
    ...extra,
  });
const gcp = (extra: Record<string, string> = {}) =>
  configuration({ auth_method: 'gcp_metadata', scope: 'https://www.googleapis.com/auth/sqlservice.login', ...extra });

describe('postgres source with a cloud access token as the password', () => {
  it('azure_managed_identity: the token for the database resource logs in; pooled logins share it', async () => {
    metadata.setTokenValue(TOKEN);
    const { auth, lines } = await connectSource<PostgresSource>(azure(), 'postgres');
    try {
      const probe = await auth.probe();
      expect(probe.outcome).toBe('SELECT 1');
      // Three logins at once through the pool, one token request in all.
      const rows = await Promise.all(
        [1, 2, 3].map((n) => auth.source.query<{ n: number }>('select $1::int as n, pg_sleep(0.05)', [n])),
      );
      expect(rows.map((r) => r[0]!.n)).toEqual([1, 2, 3]);
      const [ssl] = await auth.source.query<{ ssl: boolean }>(
        'select ssl from pg_stat_ssl where pid = pg_backend_pid()',
      );
      expect(ssl).toEqual({ ssl: true });
      expect(metadata.tokenRequests).toHaveLength(1);
      expect(metadata.tokenRequests[0]!.query.resource).toBe('https://ossrdbms-aad.database.windows.net');
      expect(lines.join('\n')).not.toContain(TOKEN);
    } finally {
      await auth.close();
    }
  });

  it('gcp_metadata: the sqlservice.login token logs in', async () => {
    metadata.setTokenValue(TOKEN);
    const { auth } = await connectSource<PostgresSource>(gcp(), 'postgres');
    try {
      expect((await auth.probe()).outcome).toBe('SELECT 1');
      expect(metadata.tokenRequests[0]!.query.scopes).toBe('https://www.googleapis.com/auth/sqlservice.login');
    } finally {
      await auth.close();
    }
  });

  it("gcp_workload_identity: the impersonated service account's token logs in (Cloud SQL IAM user)", async () => {
    const file = join(tokenDir, 'token');
    await writeFile(file, await googleSts.workload.token({ audience: PROVIDER_AUDIENCE }));
    googleSts.setServiceAccountTokenValue(TOKEN);
    const credentials = JSON.stringify({
      type: 'external_account',
      audience: STS_AUDIENCE,
      subject_token_type: 'urn:ietf:params:oauth:token-type:jwt',
      token_url: googleSts.tokenUrl,
      service_account_impersonation_url: googleSts.impersonationUrl(),
      credential_source: { file },
    });
    const { auth, lines } = await connectSource<PostgresSource>(
      configuration({
        auth_method: 'gcp_workload_identity',
        gcp_credential_configuration: credentials,
        scope: 'https://www.googleapis.com/auth/sqlservice.login',
      }),
      'postgres',
    );
    try {
      expect((await auth.probe()).outcome).toBe('SELECT 1');
      expect([googleSts.exchanges, googleSts.impersonations]).toEqual([1, 1]);
      expect(lines.join('\n')).not.toContain(TOKEN);
    } finally {
      await auth.close();
      googleSts.setServiceAccountTokenValue(undefined);
    }
  });

  it('a token the server does not accept: exit 3 naming resource, the token in no message or log', async () => {
    const { error, lines } = await probeFailure(azure(), 'postgres');
    expect(error.exitCode).toBe(3);
    expect(error.code).toBe('postgres_token_rejected');
    expect(error.key).toBe('resource');
    expect(error.message).toContain('rejected the access token given as the password');
    expectNoSecretIn(
      error,
      lines,
      metadata.issued.flatMap((t) => leakForms(t.value)).filter((f) => f.length >= 8),
    );
  });

  it('gcp_metadata with a token the server does not accept: exit 3 naming scope', async () => {
    const { error } = await probeFailure(gcp(), 'postgres');
    expect(error.exitCode).toBe(3);
    expect(error.key).toBe('scope');
  });

  it('the identity service refuses (no such identity): exit 3 before any database login', async () => {
    const before = db.connectionsReceived();
    const { error } = await probeFailure(
      azure({ azure_client_id: '11111111-2222-3333-4444-555555555555' }),
      'postgres',
    );
    expect(error.exitCode).toBe(3);
    expect(error.key).toBe('azure_client_id');
    expect(db.connectionsReceived()).toBe(before);
  });
});
