import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { start as startMetadata, type CloudMetadataPeer } from '../peers/cloud-metadata.js';
import { SERVICE_ACCOUNT, STS_AWS_AUDIENCE, start, type GoogleStsPeer } from '../peers/google-sts.js';
import { start as startAwsSts, type StsPeer } from '../peers/sts.js';
import { connect, expectNoLeak, harness, probeWith, rejection } from './support.js';

/**
 * gcp_workload_identity from an EC2 instance (Google's AWS provider), end to end through three peers:
 * the instance metadata service (test/peers/cloud-metadata.ts) hands out the instance role's
 * credentials and region; the client signs a GetCallerIdentity with them and hands it to Google's
 * STS (test/peers/google-sts.ts) as the subject token; that STS sends it on to AWS STS
 * (test/peers/sts.ts), which checks the signature and answers the role session's ARN, as AWS does for
 * Google. So the signature is checked by code that is not the signer's, over the request as Google
 * forwards it.
 */

const ACCOUNT = '123456789012';
const ROLE = 'connector-instance-role';
const INSTANCE = 'i-0b22a22eec53b9321';
const REGION = 'eu-west-1';
const CALLER = `arn:aws:sts::${ACCOUNT}:assumed-role/${ROLE}/${INSTANCE}`;
const VERIFICATION_URL = 'https://sts.{region}.amazonaws.com?Action=GetCallerIdentity&Version=2011-06-15';

let awsSts: StsPeer;
let metadata: CloudMetadataPeer;
let google: GoogleStsPeer;
/** The account whose role the instance's credentials are (AWS knows them from then on); null: AWS does not know them. */
let issuingAccount: string | null = ACCOUNT;

beforeAll(async () => {
  awsSts = await startAwsSts({ region: REGION });
  [metadata, google] = await Promise.all([
    startMetadata({
      awsRole: ROLE,
      awsRegion: REGION,
      onAwsIssued: (credentials) => {
        if (issuingAccount) awsSts.acceptSession(credentials, `arn:aws:iam::${issuingAccount}:role/${ROLE}`, INSTANCE);
      },
    }),
    start({ aws: { stsEndpoint: awsSts.endpoint, account: ACCOUNT, grantedRole: ROLE } }),
  ]);
});
afterAll(async () => {
  await Promise.all([awsSts?.stop(), metadata?.stop(), google?.stop()]);
});

/** What `gcloud iam workload-identity-pools create-cred-config … --aws --enable-imdsv2` writes, pointed at the peers. */
function awsConfiguration(
  extra: Record<string, unknown> = {},
  source: Record<string, unknown> = {},
  at = metadata.url,
): string {
  return JSON.stringify({
    type: 'external_account',
    audience: STS_AWS_AUDIENCE,
    subject_token_type: 'urn:ietf:params:aws:token-type:aws4_request',
    token_url: google.tokenUrl,
    credential_source: {
      environment_id: 'aws1',
      region_url: `${at}/latest/meta-data/placement/availability-zone`,
      url: `${at}/latest/meta-data/iam/security-credentials`,
      regional_cred_verification_url: VERIFICATION_URL,
      imdsv2_session_token_url: `${at}/latest/api/token`,
      ...source,
    },
    ...extra,
  });
}

const configuration = (credentials: string, extra: Record<string, string> = {}) => ({
  auth_method: 'gcp_workload_identity',
  gcp_credential_configuration: credentials,
  base_url: google.apiUrl,
  probe_path: 'health',
  ...extra,
});

/** The subject token as Google's STS received it: the serialized request. */
function lastSubjectRequest(): { url: string; method: string; headers: { key: string; value: string }[] } {
  const token = google.seen.filter((t) => t.startsWith('%7B')).at(-1)!;
  return JSON.parse(decodeURIComponent(token)) as ReturnType<typeof lastSubjectRequest>;
}

describe('gcp_workload_identity with an AWS credential source (EC2)', () => {
  it("the instance role's signed GetCallerIdentity, checked by AWS through Google's STS, buys the federated token", async () => {
    const h = harness();
    const issuedBefore = metadata.awsIssued.length;
    const { probe } = await probeWith(h, configuration(awsConfiguration()));
    expect(probe.outcome).toBe('HTTP 200');
    // AWS said who signed, and the API saw that principal.
    expect(google.awsCallers.at(-1)).toBe(CALLER);
    expect(google.apiCalls.at(-1)).toMatch(
      new RegExp(`/workloadIdentityPools/connectors/subject/${CALLER.replaceAll('/', '\\/')}$`),
    );
    expect(awsSts.requests.at(-1)).toMatchObject({
      action: 'GetCallerIdentity',
      status: 200,
      accessKeyId: metadata.awsIssued.at(-1)!.accessKeyId,
    });

    // Google's documented form: the regional URL for the instance's region, POST, headers in name
    // order, the pool provider among the signed headers.
    const request = lastSubjectRequest();
    expect([request.url, request.method]).toEqual([VERIFICATION_URL.replace('{region}', REGION), 'POST']);
    const names = request.headers.map((h) => h.key);
    expect(names).toEqual([...names].sort());
    expect(names).toEqual([
      'authorization',
      'host',
      'x-amz-date',
      'x-amz-security-token',
      'x-goog-cloud-target-resource',
    ]);
    const header = (name: string) => request.headers.find((h) => h.key === name)!.value;
    expect(header('host')).toBe(`sts.${REGION}.amazonaws.com`);
    expect(header('x-goog-cloud-target-resource')).toBe(STS_AWS_AUDIENCE);
    expect(header('authorization')).toMatch(
      new RegExp(
        `/${REGION}/sts/aws4_request, SignedHeaders=host;x-amz-date;x-amz-security-token;x-goog-cloud-target-resource, Signature=[0-9a-f]{64}$`,
      ),
    );

    // The instance's IMDSv2 session, its role, its credentials and its region; no IMDSv1 request.
    const asked = metadata.tokenRequests.map((r) => r.path);
    expect(asked).toEqual(
      expect.arrayContaining([
        '/latest/api/token',
        '/latest/meta-data/iam/security-credentials/',
        `/latest/meta-data/iam/security-credentials/${ROLE}`,
        '/latest/meta-data/placement/region',
      ]),
    );
    expect(
      metadata.tokenRequests
        .filter((r) => r.path !== '/latest/api/token')
        .every((r) => typeof r.headers['x-aws-ec2-metadata-token'] === 'string'),
    ).toBe(true);
    expect(metadata.awsIssued.length - issuedBefore).toBe(1);

    const aws = metadata.awsIssued.at(-1)!;
    expectNoLeak(h.lines, [aws.secretAccessKey, aws.sessionToken, ...google.seen]);
    expect(h.registry.redact(`signature ${/Signature=(\w+)/.exec(header('authorization'))![1]}`)).not.toMatch(
      /[0-9a-f]{64}/,
    );
  });

  it("impersonation: a session of the granted role gets the service account's own token", async () => {
    const before = google.impersonations;
    const { probe } = await probeWith(
      harness(),
      configuration(awsConfiguration({ service_account_impersonation_url: google.impersonationUrl() })),
    );
    expect(probe.outcome).toBe('HTTP 200');
    expect(google.impersonations - before).toBe(1);
    expect(google.apiCalls.at(-1)).toBe(`serviceAccount:${SERVICE_ACCOUNT}`);
  });

  it("a new signature for each exchange; the role's credentials and the region are asked once", async () => {
    const h = harness();
    google.setFederatedTokenLifetime(600);
    const issuedBefore = metadata.awsIssued.length;
    const regionAsked = () =>
      metadata.tokenRequests.filter((r) => r.path === '/latest/meta-data/placement/region').length;
    const regionBefore = regionAsked();
    const before = { exchanges: google.exchanges, checks: awsSts.requests.length };
    const auth = await connect(h, configuration(awsConfiguration()), { fakeClock: true });
    try {
      expect((await auth.probe()).outcome).toBe('HTTP 200');
      const first = lastSubjectRequest();
      // Past the federated token's ten minutes (within SigV4's fifteen of the real clock AWS checks against).
      h.clock.advance(601_000);
      expect((await auth.source.fetch('health')).status).toBe(200);
      expect([google.exchanges - before.exchanges, awsSts.requests.length - before.checks]).toEqual([2, 2]);
      expect(lastSubjectRequest().headers.find((x) => x.key === 'x-amz-date')).not.toEqual(
        first.headers.find((x) => x.key === 'x-amz-date'),
      );
      expect([metadata.awsIssued.length - issuedBefore, regionAsked() - regionBefore]).toEqual([1, 1]);
    } finally {
      await auth.close();
      google.setFederatedTokenLifetime(3600);
    }
  });

  it("AWS refuses the credentials: exit 3 naming gcp_credential_configuration, with AWS's words as Google passes them", async () => {
    issuingAccount = null;
    try {
      const h = harness();
      const error = await rejection(probeWith(h, configuration(awsConfiguration())));
      expect([error.exitCode, error.key, error.code]).toEqual([
        3,
        'gcp_credential_configuration',
        'oauth_invalid_grant',
      ]);
      expect(error.message).toContain(
        'Received invalid AWS response of type InvalidClientTokenId with error message: The security token included in the request is invalid.',
      );
      expect(awsSts.requests.at(-1)).toMatchObject({
        action: 'GetCallerIdentity',
        status: 403,
        code: 'InvalidClientTokenId',
      });
      const aws = metadata.awsIssued.at(-1)!;
      expectNoLeak([error.message, ...h.lines], [aws.secretAccessKey, aws.sessionToken]);
    } finally {
      issuingAccount = ACCOUNT;
    }
  });

  it('a role of an account the provider does not trust: exit 3 naming gcp_credential_configuration', async () => {
    issuingAccount = '999999999999';
    try {
      const error = await rejection(probeWith(harness(), configuration(awsConfiguration())));
      expect([error.exitCode, error.key, error.code]).toEqual([
        3,
        'gcp_credential_configuration',
        'oauth_invalid_grant',
      ]);
      expect(error.message).toContain('[999999999999]');
    } finally {
      issuingAccount = ACCOUNT;
    }
  });

  it('an instance without a role, and a machine without IMDS: the error says which, before any exchange', async () => {
    const before = google.exchanges;
    const bare = await startMetadata({ awsRole: null, awsRegion: REGION });
    try {
      const error = await rejection(probeWith(harness(), configuration(awsConfiguration({}, {}, bare.url))));
      expect([error.exitCode, error.code]).toEqual([3, 'instance_profile_missing']);
      expect(error.hint).toContain('attach an instance profile');
    } finally {
      await bare.stop();
    }
    const closed = await new Promise<string>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const port = (s.address() as AddressInfo).port;
        s.close(() => resolve(`http://127.0.0.1:${port}`));
      });
    });
    const away = await rejection(
      probeWith(harness(), configuration(awsConfiguration({}, {}, closed), { timeout_seconds: '3' })),
    );
    expect([away.exitCode, away.key]).toEqual([4, 'gcp_credential_configuration']);
    expect(away.hint).toContain('answers only on EC2');
    expect(google.exchanges).toBe(before);
  });

  it('AWS sources it cannot use: exit 2 naming gcp_credential_configuration, before any request', async () => {
    const before = { exchanges: google.exchanges, imds: metadata.tokenRequests.length };
    const cases: [string, string][] = [
      [awsConfiguration({}, { environment_id: 'aws2' }), 'version 2'],
      [awsConfiguration({}, { environment_id: 'azure1' }), 'not an AWS environment'],
      [awsConfiguration({}, { regional_cred_verification_url: undefined }), 'regional_cred_verification_url'],
      [
        awsConfiguration(
          {},
          {
            regional_cred_verification_url:
              'http://sts.{region}.amazonaws.com?Action=GetCallerIdentity&Version=2011-06-15',
          },
        ),
        'not https://',
      ],
      [awsConfiguration({}, { url: undefined }), 'environment variables are not read'],
      [
        awsConfiguration({}, { url: 'http://metadata.example.com/latest/meta-data/iam/security-credentials' }),
        'must be https://',
      ],
      [
        awsConfiguration({}, { url: `${metadata.url}/latest/meta-data/iam/info` }),
        'latest/meta-data/iam/security-credentials',
      ],
      [
        awsConfiguration({}, { imdsv2_session_token_url: 'http://169.254.169.254/latest/api/token' }),
        'imdsv2_session_token_url',
      ],
      [awsConfiguration({}, { region_url: `${metadata.url}/latest/meta-data/placement/zone` }), 'region_url'],
      [
        awsConfiguration({ subject_token_type: 'urn:ietf:params:oauth:token-type:jwt' }),
        'must be "urn:ietf:params:aws:token-type:aws4_request"',
      ],
    ];
    for (const [credentials, said] of cases) {
      const error = await rejection(probeWith(harness(), configuration(credentials)));
      expect([error.exitCode, error.key, error.code]).toEqual([
        2,
        'gcp_credential_configuration',
        'gcp_credential_configuration_invalid',
      ]);
      expect(error.message).toContain(said);
    }
    expect([google.exchanges, metadata.tokenRequests.length]).toEqual([before.exchanges, before.imds]);
  });
});
