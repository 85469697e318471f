import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { S3Source } from '../../src/sources/index.js';
import { leakForms } from '../helpers/cli.js';
import {
  connectSource,
  expectNoSecretIn,
  probeFailure as probeFailureOf,
  silentServer,
} from '../helpers/source-session.js';
import { start as startMetadata, type CloudMetadataPeer } from '../peers/cloud-metadata.js';
import { createCa, issueServer } from '../peers/certificates.js';
import { start as startS3, type S3rverPeer } from '../peers/s3rver.js';

/**
 * The workload's own AWS role, no key in configuration.json: aws_instance_profile (the EC2 instance's
 * role, from IMDSv2) and aws_container_credentials (the ECS task's or EKS pod's role, from the
 * container credentials endpoint). test/peers/cloud-metadata.ts reproduces both endpoints (IMDSv2's
 * session PUT and session header, the role listing; ECS's per-task path, Pod Identity's token). The S3
 * peer accepts only the credentials served there besides its own pair, with their session token
 * checked, so a listing proves the whole path.
 */

let imds: CloudMetadataPeer;
let bare: CloudMetadataPeer;
let s3: S3rverPeer;
let dir: string;

beforeAll(async () => {
  s3 = await startS3({ buckets: ['orders'] });
  await s3.put('orders', 'exports/2024-01.csv', 'id\n1\n');
  [imds, bare] = await Promise.all([
    startMetadata({ onAwsIssued: (c) => s3.acceptTemporary(c) }),
    startMetadata({ awsRole: null }),
  ]);
  dir = await mkdtemp(join(tmpdir(), 'connector-auth-workload-roles-'));
});

afterAll(async () => {
  await Promise.all([imds?.stop(), bare?.stop(), s3?.stop()]);
  if (dir) await rm(dir, { recursive: true, force: true });
});

const configuration = (peer: CloudMetadataPeer, extra: Record<string, string> = {}) => ({
  auth_method: 'aws_instance_profile',
  metadata_endpoint: peer.url,
  bucket: 'orders',
  prefix: 'exports/',
  endpoint: s3.endpoint,
  ...extra,
});

const imdsRequests = (peer: CloudMetadataPeer, since: number) =>
  peer.tokenRequests.slice(since).map((r) => `${r.status} ${r.path}`);
const secretForms = () =>
  imds.awsIssued.flatMap((c) => [c.secretAccessKey, c.sessionToken]).flatMap((secret) => leakForms(secret));

describe('aws_instance_profile: the EC2 role from IMDSv2', () => {
  it('a session, the role, its credentials: S3 signed with them; one fetch for any number of callers; registered as secrets, shown nowhere', async () => {
    const before = imds.tokenRequests.length;
    const { auth, registry, lines } = await connectSource<S3Source>(configuration(imds), 's3');
    try {
      await Promise.all([auth.probe(), ...Array.from({ length: 20 }, () => auth.credential.awsKeys!.identity())]);
      const objects: string[] = [];
      for await (const object of auth.source.list()) objects.push(object.key);
      expect(objects).toEqual(['exports/2024-01.csv']);

      expect(imdsRequests(imds, before)).toEqual([
        '200 /latest/api/token',
        '200 /latest/meta-data/iam/security-credentials/',
        '200 /latest/meta-data/iam/security-credentials/connector-instance-role',
      ]);
      const [put, ...gets] = imds.tokenRequests.slice(before);
      expect(put!.headers['x-aws-ec2-metadata-token-ttl-seconds']).toBe('21600');
      for (const get of gets) expect(get.headers['x-aws-ec2-metadata-token']).toBeTruthy();

      const served = imds.awsIssued.at(-1)!;
      expect(await auth.credential.awsKeys!.identity()).toMatchObject({
        accessKeyId: served.accessKeyId,
        sessionToken: served.sessionToken,
      });
      expect(registry.redact(`${served.secretAccessKey} ${served.sessionToken}`)).not.toContain(served.secretAccessKey);
      const all = lines.join('\n');
      for (const form of secretForms()) expect(all.includes(form), form.slice(0, 10)).toBe(false);
    } finally {
      await auth.close();
    }
  });

  it('no role attached to the instance: exit 3 naming auth_method, before any S3 request', async () => {
    const s3Before = s3.requests.length;
    const { error, lines } = await probeFailureOf(configuration(bare), 's3');
    expect([error.exitCode, error.key, error.code]).toEqual([3, 'auth_method', 'instance_profile_missing']);
    expect(error.hint).toContain('instance profile');
    expectNoSecretIn(error, lines, secretForms());
    expect(s3.requests.length).toBe(s3Before);
  });

  it('IMDS refusing the session (a proxy in front of it), or not there at all (not on EC2): exit 4 naming metadata_endpoint', async () => {
    const before = imds.tokenRequests.length;
    imds.failNext(403, 1, 'Forbidden');
    const refused = await probeFailureOf(configuration(imds), 's3');
    expect([refused.error.exitCode, refused.error.key, refused.error.code]).toEqual([
      4,
      'metadata_endpoint',
      'instance_metadata_error',
    ]);
    expect(imdsRequests(imds, before)).toEqual(['403 /latest/api/token']);

    const closed = await silentServer();
    closed.close();
    const { error } = await probeFailureOf(
      configuration(imds, { metadata_endpoint: `http://127.0.0.1:${closed.port}` }),
      's3',
    );
    expect([error.exitCode, error.key]).toEqual([4, 'metadata_endpoint']);
    expect(error.hint).toContain('only on EC2');
  });

  it('a document IMDS answers with a refusal (Code), or without a part of the credentials: exit 3 naming auth_method, exit 4 naming metadata_endpoint; what it carried stays secret', async () => {
    imds.alterNextAwsDocument({ Code: 'AssumeRoleUnauthorizedAccess', Message: 'EC2 cannot assume the role' });
    const refused = await probeFailureOf(configuration(imds), 's3');
    expect([refused.error.exitCode, refused.error.key, refused.error.code]).toEqual([
      3,
      'auth_method',
      'instance_profile_credentials_unavailable',
    ]);
    expect(refused.error.message).toContain("role 'connector-instance-role' (AssumeRoleUnauthorizedAccess: EC2 cannot");

    imds.alterNextAwsDocument({ Token: undefined });
    const { error, lines } = await probeFailureOf(configuration(imds), 's3');
    expect([error.exitCode, error.key, error.code]).toEqual([4, 'metadata_endpoint', 'instance_metadata_error']);
    expect(error.message).toContain("with incomplete credentials of role 'connector-instance-role'");
    expectNoSecretIn(error, lines, leakForms(imds.awsIssued.at(-1)!.secretAccessKey));
  });

  it('metadata_endpoint over plain http off link-local and loopback is refused before any request (exit 2)', async () => {
    const { error } = await probeFailureOf(configuration(imds, { metadata_endpoint: 'http://10.0.0.5' }), 's3');
    expect([error.exitCode, error.key]).toEqual([2, 'metadata_endpoint']);
  });
});

describe("aws_container_credentials: the ECS task's or EKS pod's role from the container endpoint", () => {
  const containerConfiguration = (extra: Record<string, string>) => ({
    auth_method: 'aws_container_credentials',
    bucket: 'orders',
    prefix: 'exports/',
    endpoint: s3.endpoint,
    ...extra,
  });

  it("ECS: the task's URL gives the credentials S3 is signed with, one request for any number of callers", async () => {
    const before = imds.tokenRequests.length;
    const { auth } = await connectSource<S3Source>(
      containerConfiguration({ container_credentials_url: `${imds.url}${imds.ecsCredentialsUri}` }),
      's3',
    );
    try {
      await Promise.all([auth.probe(), ...Array.from({ length: 20 }, () => auth.credential.awsKeys!.identity())]);
      expect(imdsRequests(imds, before)).toEqual([`200 ${imds.ecsCredentialsUri}`]);
      expect((await auth.credential.awsKeys!.identity()).accessKeyId).toBe(imds.awsIssued.at(-1)!.accessKeyId);
    } finally {
      await auth.close();
    }
  });

  it("EKS Pod Identity: the token file's content is the Authorization, registered as a secret; a wrong one is exit 3 naming the file, a missing file exit 2", async () => {
    const url = `${imds.url}/v1/credentials`;
    const tokenFile = join(dir, 'eks-pod-identity-token');
    await writeFile(tokenFile, `${imds.podIdentityToken}\n`);
    const { auth, registry, lines } = await connectSource<S3Source>(
      containerConfiguration({ container_credentials_url: url, container_authorization_token_file: tokenFile }),
      's3',
    );
    try {
      await auth.probe();
      expect(imds.tokenRequests.at(-1)!.headers.authorization).toBe(imds.podIdentityToken);
      expect(registry.redact(`token ${imds.podIdentityToken}`)).not.toContain(imds.podIdentityToken);
      expect(lines.join('\n')).not.toContain(imds.podIdentityToken);
    } finally {
      await auth.close();
    }

    await writeFile(join(dir, 'stale-token'), 'not-the-pod-token');
    const cases: [Record<string, string>, number, string, string][] = [
      [
        { container_authorization_token_file: join(dir, 'stale-token') },
        3,
        'container_authorization_token_file',
        'container_credentials_refused',
      ],
      [{}, 3, 'container_credentials_url', 'container_credentials_refused'],
      [
        { container_authorization_token_file: join(dir, 'no-such-file') },
        2,
        'container_authorization_token_file',
        'container_authorization_token_unreadable',
      ],
    ];
    for (const [extra, exitCode, key, code] of cases) {
      const { error, lines: failureLines } = await probeFailureOf(
        containerConfiguration({ container_credentials_url: url, ...extra }),
        's3',
      );
      expect([error.exitCode, error.key, error.code], JSON.stringify(extra)).toEqual([exitCode, key, code]);
      expectNoSecretIn(error, failureLines, leakForms(imds.podIdentityToken));
    }
  });

  it('an endpoint over HTTPS is verified, against the system roots plus tls_ca_certificate: trusted with it, exit 5 without', async () => {
    const ca = createCa();
    const server = issueServer(ca, { hosts: ['localhost'] });
    const tlsPeer = await startMetadata({
      tls: { key: server.privateKeyPem, cert: server.certificatePem },
      onAwsIssued: (c) => s3.acceptTemporary(c),
    });
    try {
      const url = `${tlsPeer.url}${tlsPeer.ecsCredentialsUri}`;
      const { auth } = await connectSource<S3Source>(
        containerConfiguration({ container_credentials_url: url, tls_ca_certificate: ca.certificatePem }),
        's3',
      );
      try {
        await auth.probe();
      } finally {
        await auth.close();
      }
      const { error } = await probeFailureOf(containerConfiguration({ container_credentials_url: url }), 's3');
      expect([error.exitCode, error.key]).toEqual([5, 'tls_ca_certificate']);
    } finally {
      await tlsPeer.stop();
    }
  });

  it('a document whose expiry is not a time: exit 4 naming container_credentials_url; the key it carried stays secret', async () => {
    imds.alterNextAwsDocument({ Expiration: 'in an hour' });
    const { error, lines } = await probeFailureOf(
      containerConfiguration({ container_credentials_url: `${imds.url}${imds.ecsCredentialsUri}` }),
      's3',
    );
    expect([error.exitCode, error.key, error.code]).toEqual([
      4,
      'container_credentials_url',
      'container_credentials_error',
    ]);
    expect(error.message).toContain('answered HTTP 200 without complete credentials');
    const served = imds.awsIssued.at(-1)!;
    expectNoSecretIn(
      error,
      lines,
      [served.secretAccessKey, served.sessionToken].flatMap((s) => leakForms(s)),
    );
  });

  it("another task's URL, or no endpoint at all (not in ECS or EKS): exit 4 naming container_credentials_url; plain http off the host: exit 2", async () => {
    const other = await probeFailureOf(
      containerConfiguration({ container_credentials_url: `${imds.url}/v2/credentials/another-task` }),
      's3',
    );
    expect([other.error.exitCode, other.error.key, other.error.code]).toEqual([
      4,
      'container_credentials_url',
      'container_credentials_error',
    ]);

    const closed = await silentServer();
    closed.close();
    const { error } = await probeFailureOf(
      containerConfiguration({ container_credentials_url: `http://127.0.0.1:${closed.port}/v1/credentials` }),
      's3',
    );
    expect([error.exitCode, error.key]).toEqual([4, 'container_credentials_url']);
    expect(error.hint).toContain('only inside an ECS task or an EKS pod');

    const clear = await probeFailureOf(
      containerConfiguration({ container_credentials_url: 'http://credentials.internal.example.com/v1/credentials' }),
      's3',
    );
    expect([clear.error.exitCode, clear.error.key]).toEqual([2, 'container_credentials_url']);
  });
});
