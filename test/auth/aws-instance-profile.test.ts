import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AwsCredential } from '../../src/auth/index.js';
import { authenticate, type SourceClients } from '../../src/connector/index.js';
import { SecretRegistry } from '../../src/secrets/index.js';
import type { S3Source } from '../../src/sources/index.js';
import { leakForms } from '../helpers/cli.js';
import { expectNoSecretIn, probeFailure as probeFailureOf, recordingLogger, silentServer } from '../helpers/source-session.js';
import { start as startMetadata, type CloudMetadataPeer } from '../peers/cloud-metadata.js';
import { start as startS3, type S3rverPeer } from '../peers/s3rver.js';

/**
 * aws_instance_profile: the EC2 instance's own role, its credentials from IMDSv2
 * (test/peers/cloud-metadata.ts reproduces EC2's metadata service: the session PUT, the session
 * header on every GET, the role listing and its credentials document). The S3 peer accepts only the
 * credentials served there besides its own pair, with their session token checked, so a listing
 * proves the whole path.
 */

let imds: CloudMetadataPeer;
let bare: CloudMetadataPeer;
let s3: S3rverPeer;

beforeAll(async () => {
  s3 = await startS3({ buckets: ['orders'] });
  await s3.put('orders', 'exports/2024-01.csv', 'id\n1\n');
  [imds, bare] = await Promise.all([startMetadata({ onAwsIssued: (c) => s3.acceptTemporary(c) }), startMetadata({ awsRole: null })]);
}, 30_000);

afterAll(async () => {
  await Promise.all([imds?.stop(), bare?.stop(), s3?.stop()]);
});

const configuration = (peer: CloudMetadataPeer, extra: Record<string, string> = {}) => ({
  auth_method: 'aws_instance_profile',
  metadata_endpoint: peer.url,
  bucket: 'orders',
  prefix: 'exports/',
  endpoint: s3.endpoint,
  ...extra,
});

const imdsRequests = (peer: CloudMetadataPeer, since: number) => peer.tokenRequests.slice(since).map((r) => `${r.status} ${r.path}`);
const secretForms = () => imds.awsIssued.flatMap((c) => [c.secretAccessKey, c.sessionToken]).flatMap((secret) => leakForms(secret));

describe('aws_instance_profile: the EC2 role from IMDSv2', () => {
  it('a session, the role, its credentials: S3 signed with them; one fetch for any number of callers; registered as secrets, shown nowhere', async () => {
    const before = imds.tokenRequests.length;
    const lines: string[] = [];
    const registry = new SecretRegistry();
    const auth = await authenticate(configuration(imds), { source: 's3' as keyof SourceClients, registry, log: recordingLogger(lines) });
    try {
      await Promise.all([auth.probe(), ...Array.from({ length: 20 }, () => (auth.credential as AwsCredential).identity())]);
      const objects: string[] = [];
      for await (const object of (auth.source as S3Source).list()) objects.push(object.key);
      expect(objects).toEqual(['exports/2024-01.csv']);

      expect(imdsRequests(imds, before)).toEqual(['200 /latest/api/token', '200 /latest/meta-data/iam/security-credentials/', '200 /latest/meta-data/iam/security-credentials/connector-instance-role']);
      const [put, ...gets] = imds.tokenRequests.slice(before);
      expect(put!.headers['x-aws-ec2-metadata-token-ttl-seconds']).toBe('21600');
      for (const get of gets) expect(get.headers['x-aws-ec2-metadata-token']).toBeTruthy();

      const served = imds.awsIssued.at(-1)!;
      expect(await (auth.credential as AwsCredential).identity()).toMatchObject({ accessKeyId: served.accessKeyId, sessionToken: served.sessionToken });
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
    expect([refused.error.exitCode, refused.error.key, refused.error.code]).toEqual([4, 'metadata_endpoint', 'instance_metadata_error']);
    expect(imdsRequests(imds, before)).toEqual(['403 /latest/api/token']);

    const closed = await silentServer();
    closed.close();
    const { error } = await probeFailureOf(configuration(imds, { metadata_endpoint: `http://127.0.0.1:${closed.port}` }), 's3');
    expect([error.exitCode, error.key]).toEqual([4, 'metadata_endpoint']);
    expect(error.hint).toContain('only on EC2');
  });

  it("metadata_endpoint over plain http off link-local and loopback is refused before any request (exit 2)", async () => {
    const { error } = await probeFailureOf(configuration(imds, { metadata_endpoint: 'http://10.0.0.5' }), 's3');
    expect([error.exitCode, error.key]).toEqual([2, 'metadata_endpoint']);
  });
});
