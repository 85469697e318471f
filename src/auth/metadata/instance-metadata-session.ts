import { AuthenticationError, SourceUnreachableError } from '../../errors/index.js';
import { describeUrl } from '../../network/index.js';
import type { AuthContext } from '../auth-method.js';
import type { AwsSession } from '../aws/index.js';
import { awsDocumentSession, parseCredentialsDocument, type AskEndpoint } from './aws-document-session.js';

/**
 * The credentials of the IAM role attached to an EC2 instance (its instance profile), from the
 * instance metadata service, IMDSv2 only:
 *
 *   PUT  /latest/api/token                                   X-aws-ec2-metadata-token-ttl-seconds: 21600
 *   GET  /latest/meta-data/iam/security-credentials/         X-aws-ec2-metadata-token: <session>  → the role's name
 *   GET  /latest/meta-data/iam/security-credentials/<role>   → {Code, AccessKeyId, SecretAccessKey, Token, Expiration}
 *   GET  /latest/meta-data/placement/region                  → the instance's region, when a caller asks for it
 *
 * IMDSv1 (the same GETs without a session) is never used: it is what an SSRF in any program on the
 * instance can read, and AWS recommends requiring v2. The PUT is also what a proxy cannot forward
 * (IMDS refuses it with X-Forwarded-For), and its answer does not leave a container beyond the
 * instance's hop limit. EC2 rotates the role's credentials hours before they expire; the session is
 * aws-document-session.ts's (one fetch per lifetime, renewed before the end, the credentials
 * registered as secrets on arrival); here, how the document is fetched, and the region.
 */

/** The session's lifetime asked for: 6 hours, the most IMDS grants; one session serves one fetch. */
const SESSION_TTL_SECONDS = 21_600;
/** What IMDS answers at placement/region: us-east-1, eu-central-2, us-gov-west-1, cn-north-1, eusc-de-east-1. */
const REGION = /^[a-z]{2,}(?:-[a-z]+)+-\d+$/;

const NOT_ON_EC2 =
  "the instance metadata service answers only on EC2 (in a container there, the instance's metadata hop limit must be at least 2)";

export interface InstanceMetadataOptions {
  /** The metadata service's root (default http://169.254.169.254). */
  base: URL;
  /** The configuration key the root comes from, named when it does not answer as IMDS (default `metadata_endpoint`). */
  addressKey?: string;
  /** What to check about that address on EC2 (default: leave `metadata_endpoint` out). */
  onEc2?: string;
  /** What to do instead when not on EC2, e.g. "use auth_method 'aws_access_key'": said when nothing answers. */
  elsewhere?: string;
  /** The credential, for messages. */
  description: string;
  context: AuthContext;
}

/** The instance profile's credentials, and the instance's region (asked once, when a caller needs it). */
export interface InstanceMetadataSession extends AwsSession {
  region(): Promise<string>;
}

export function instanceMetadataSession(o: InstanceMetadataOptions): InstanceMetadataSession {
  const imds = imdsClient(o);
  const { ask, ...credentials } = awsDocumentSession({
    description: o.description,
    noun: 'instance profile credentials',
    context: o.context,
    urlKey: imds.addressKey,
    unreachableHint: o.elsewhere ? `${NOT_ON_EC2}; elsewhere ${o.elsewhere}` : NOT_ON_EC2,
    fetchDocument: (ask) => roleCredentials(imds, ask),
  });
  return { ...credentials, region: regionOnce(imds, ask) };
}

/** IMDSv2 as the session uses it: calls below the root, their sessions, and what an odd answer means. */
function imdsClient(o: InstanceMetadataOptions) {
  const { context, description } = o;
  const addressKey = o.addressKey ?? 'metadata_endpoint';
  const onEc2 = o.onEc2 ?? "leave 'metadata_endpoint' out on EC2";
  /** A GET or PUT of `path` below the metadata service's root. */
  const call = (ask: AskEndpoint, method: 'GET' | 'PUT', path: string, headers: Record<string, string>) =>
    ask(method, new URL(path, o.base), headers);
  const unexpected = (answer: { status: number; url: URL }, what: string) =>
    new SourceUnreachableError(`${description}: ${describeUrl(answer.url)} answered HTTP ${answer.status} ${what}`, {
      code: 'instance_metadata_error',
      key: addressKey,
      hint: `check that IMDS is turned on for the instance (aws ec2 modify-instance-metadata-options --http-endpoint enabled) and that no proxy stands in front of it; ${onEc2}`,
    });
  /** An IMDSv2 session: what every GET below needs, registered as a secret. */
  const openSession = async (ask: AskEndpoint) => {
    const session = await call(ask, 'PUT', 'latest/api/token', {
      'x-aws-ec2-metadata-token-ttl-seconds': String(SESSION_TTL_SECONDS),
    });
    if (session.status !== 200 || !session.text)
      throw unexpected(session, 'to the request for an IMDSv2 session (403: a proxy forwarded it, or IMDS is off)');
    context.secrets.register('imds_session_token', session.text);
    return { 'x-aws-ec2-metadata-token': session.text };
  };
  return { description, addressKey, elsewhere: o.elsewhere, call, unexpected, openSession };
}
type ImdsClient = ReturnType<typeof imdsClient>;

/** The instance profile role's name, then its credentials document. */
async function roleCredentials(
  { description, elsewhere, call, unexpected, openSession }: ImdsClient,
  ask: AskEndpoint,
) {
  const withSession = await openSession(ask);
  const roles = await call(ask, 'GET', 'latest/meta-data/iam/security-credentials/', withSession);
  if (roles.status === 404)
    throw new AuthenticationError(`${description}: this instance has no IAM role (no instance profile is attached)`, {
      code: 'instance_profile_missing',
      key: 'auth_method',
      hint: `attach an instance profile with the role to the instance (EC2 console: Actions, Security, Modify IAM role)${elsewhere ? `, or ${elsewhere}` : ''}`,
    });
  const role = roles.text.split('\n')[0]?.trim();
  if (roles.status !== 200 || !role) throw unexpected(roles, 'for the instance profile role');

  const path = `latest/meta-data/iam/security-credentials/${encodeURIComponent(role)}`;
  const answer = await call(ask, 'GET', path, withSession);
  if (answer.status !== 200) throw unexpected(answer, `for the credentials of role '${role}'`);
  const document = parseCredentialsDocument(answer.text);
  if (!document) throw unexpected(answer, `with something other than the credentials of role '${role}'`);
  if (document.Code !== 'Success')
    throw new AuthenticationError(
      `${description}: IMDS has no credentials for role '${role}' (${document.Code}${document.Message ? `: ${document.Message}` : ''})`,
      {
        code: 'instance_profile_credentials_unavailable',
        key: 'auth_method',
        hint: "check the instance profile's role in IAM (it must exist and trust ec2.amazonaws.com)",
      },
    );
  return {
    document,
    whose: ` of role '${role}'`,
    incomplete: () => unexpected(answer, `with incomplete credentials of role '${role}'`),
  };
}

/** The instance's region: an instance does not change region, so asked once, again only after a failure. */
function regionOnce({ call, unexpected, openSession }: ImdsClient, ask: AskEndpoint): () => Promise<string> {
  let region: Promise<string> | undefined;
  const readRegion = async () => {
    // placement/region, not the availability zone minus its last letter: a Local Zone's name
    // (us-west-2-lax-1a) does not end in the region's.
    const answer = await call(ask, 'GET', 'latest/meta-data/placement/region', await openSession(ask));
    const name = answer.text.trim();
    if (answer.status !== 200 || !REGION.test(name)) throw unexpected(answer, "for the instance's region");
    return name;
  };
  return () =>
    (region ??= readRegion().catch((error: unknown) => {
      region = undefined;
      throw error;
    }));
}
