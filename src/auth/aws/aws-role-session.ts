import type { Agent } from 'node:https';
import type { Credentials, STSClient } from '@aws-sdk/client-sts';
import { AuthenticationError, importOptionalPackage } from '../../errors/index.js';
import type { TlsSettings } from '../../network/index.js';
import type { AuthContext } from '../auth-method.js';
import type { AwsCredentialIdentity } from '../capabilities.js';
import { cachedAwsSession, type AwsSession } from './aws-credential.js';
import { quietAwsSdkNodeVersionWarning } from './aws-sdk-warning.js';
import { classifyStsError, type StsFailureContext } from './classify-sts-error.js';
import { tokenEndpointTls } from '../token-endpoint/index.js';
import type { IssuedToken } from '../tokens/index.js';

/**
 * The temporary credentials of an AWS role, from STS (the Security Token Service), kept for their
 * lifetime and renewed before they expire: AssumeRole signed with an access key (aws_access_key with
 * aws_role_arn), or AssumeRoleWithWebIdentity with a token the platform writes to a file
 * (aws_web_identity: EKS, or any OIDC issuer the role trusts).
 *
 * - The AWS SDK's own STSClient makes the call (the awsQuery protocol, SigV4, its retries of
 *   throttling and 5xx), imported at the first call, so choosing the method costs nothing until a
 *   source signs.
 * - The TokenCache (token-cache.ts) makes it one STS request per lifetime whatever the concurrency,
 *   renewing in the background 3 minutes before an hour-long session ends.
 * - The issued secret key and session token are registered as secrets the moment they arrive.
 * - Only configuration.json decides: no credentials, region or endpoint come from the environment or
 *   ~/.aws, and STS's TLS certificate is checked whatever `tls_skip_verify` says (that key is about the
 *   source), against the system roots plus `tls_ca_certificate`, as for an OAuth token endpoint.
 */

/** Asked for: an hour, which every role grants (a role's maximum session is 1 to 12 hours) and AWS's default. */
export const ROLE_SESSION_SECONDS = 3600;

export interface RoleSessionOptions {
  roleArn: string;
  sessionName: string;
  /** How the role is asked for: signed with a long-term key (and the trust policy's external id), or with a web identity token read anew for each request. */
  via:
    { accessKey: AwsCredentialIdentity; externalId: string | undefined } | { webIdentityToken: () => Promise<string> };
  /** The region STS is asked in (the signature's scope). */
  region: string;
  /** `aws_sts_endpoint`, for a VPC endpoint or a test; default: AWS's endpoint for `region`. */
  endpoint: URL | undefined;
  /** The credential, for messages: "aws role arn:… (…)". */
  description: string;
  context: AuthContext;
}

export function roleSession(o: RoleSessionOptions): AwsSession {
  const { context } = o;
  const url = o.endpoint ?? defaultStsUrl(o.region);
  let connection: Promise<StsConnection> | undefined;
  return cachedAwsSession({
    description: o.description,
    noun: 'role credentials',
    context,
    async release() {
      const open = await connection?.catch(() => undefined);
      open?.sts.destroy();
      open?.agent.destroy();
    },
    fetch: async () => {
      const { sts, commands, tls } = await (connection ??= connectSts(o));
      const deadline = AbortSignal.timeout(context.common.timeout_seconds * 1000);
      const requestedAt = context.now();
      let issued: Credentials | undefined;
      try {
        issued = await assumeRole(o, sts, commands, deadline);
      } catch (error) {
        throw await classifyStsError(error, stsFailureContext(o, url, tls, deadline.aborted));
      }
      return sessionFrom(o, url, issued, requestedAt);
    },
  });
}

/** The SDK's STS client, with the HTTPS agent it sends through and the TLS STS is held to. */
interface StsConnection {
  sts: STSClient;
  commands: typeof import('@aws-sdk/client-sts');
  agent: Agent;
  tls: TlsSettings;
}

async function connectSts(o: RoleSessionOptions): Promise<StsConnection> {
  const timeoutMs = o.context.common.timeout_seconds * 1000;
  const tls = await tokenEndpointTls(o.context.tls);
  quietAwsSdkNodeVersionWarning();
  const commands = await importOptionalPackage(
    '@aws-sdk/client-sts',
    "an AWS role's session (STS)",
    () => import('@aws-sdk/client-sts'),
  );
  // Node's https (and tls) loaded with the first role session, not with the method's keys.
  const agent = new (process.getBuiltinModule('node:https').Agent)({
    keepAlive: true,
    ...(tls.ca ? { ca: tls.ca } : {}),
  });
  const sts = new commands.STSClient({
    region: o.region,
    ...(o.endpoint ? { endpoint: o.endpoint.href } : {}),
    // The endpoint comes from configuration.json alone, not AWS_ENDPOINT_URL_STS or ~/.aws/config.
    ignoreConfiguredEndpointUrls: true,
    // AssumeRoleWithWebIdentity is unsigned; the key given (or none) is all the client may ever sign with.
    credentials: 'accessKey' in o.via ? o.via.accessKey : noCredentials,
    maxAttempts: 3,
    requestHandler: { httpsAgent: agent, connectionTimeout: timeoutMs, requestTimeout: timeoutMs },
  });
  return { sts, commands, agent, tls };
}

/** One AssumeRole (with the key) or AssumeRoleWithWebIdentity (with the token read now). */
async function assumeRole(
  o: RoleSessionOptions,
  sts: STSClient,
  commands: typeof import('@aws-sdk/client-sts'),
  deadline: AbortSignal,
): Promise<Credentials | undefined> {
  const common = { RoleArn: o.roleArn, RoleSessionName: o.sessionName, DurationSeconds: ROLE_SESSION_SECONDS };
  const answer =
    'accessKey' in o.via
      ? await sts.send(
          new commands.AssumeRoleCommand({
            ...common,
            ...(o.via.externalId ? { ExternalId: o.via.externalId } : {}),
          }),
          { abortSignal: deadline },
        )
      : await sts.send(
          new commands.AssumeRoleWithWebIdentityCommand({
            ...common,
            WebIdentityToken: await o.via.webIdentityToken(),
          }),
          { abortSignal: deadline },
        );
  return answer.Credentials;
}

function stsFailureContext(o: RoleSessionOptions, url: URL, tls: TlsSettings, timedOut: boolean): StsFailureContext {
  return {
    description: o.description,
    roleArn: o.roleArn,
    region: o.region,
    via:
      'accessKey' in o.via
        ? { accessKeyId: o.via.accessKey.accessKeyId, externalId: o.via.externalId }
        : 'web_identity',
    url,
    urlKey: o.endpoint ? 'aws_sts_endpoint' : 'aws_region',
    timeoutSeconds: o.context.common.timeout_seconds,
    tls,
    timedOut,
  };
}

/** The issued keys, registered as secrets, with how long they are good for. */
function sessionFrom(
  o: RoleSessionOptions,
  url: URL,
  issued: Credentials | undefined,
  requestedAt: number,
): IssuedToken<AwsCredentialIdentity> {
  const { context } = o;
  if (!issued?.AccessKeyId || !issued.SecretAccessKey || !issued.SessionToken)
    throw new AuthenticationError(`${o.description}: STS at ${url.host} answered without the role's credentials`, {
      code: 'sts_answer_incomplete',
      key: o.endpoint ? 'aws_sts_endpoint' : 'aws_region',
      hint: "check that 'aws_sts_endpoint' is AWS STS (or leave it out)",
    });
  context.secrets.register('aws_role_secret_access_key', issued.SecretAccessKey);
  context.secrets.register('aws_role_session_token', issued.SessionToken);
  // Counted from the request, and never past the Expiration STS names (a role may grant less than asked).
  const expiration = issued.Expiration instanceof Date ? issued.Expiration : undefined;
  const lifetimeMs = Math.min(ROLE_SESSION_SECONDS * 1000, expiration ? expiration.getTime() - requestedAt : Infinity);
  context.log.debug(
    `${o.description}: temporary credentials ${issued.AccessKeyId} issued, valid for ${Math.round(lifetimeMs / 1000)}s`,
  );
  return {
    value: {
      accessKeyId: issued.AccessKeyId,
      secretAccessKey: issued.SecretAccessKey,
      sessionToken: issued.SessionToken,
      ...(expiration ? { expiration } : {}),
    },
    lifetimeMs,
  };
}

/** AWS's regional STS endpoint, for messages (the SDK resolves the same one itself). */
export function defaultStsUrl(region: string): URL {
  return new URL(`https://sts.${region}.amazonaws.com${region.startsWith('cn-') ? '.cn' : ''}/`);
}

async function noCredentials(): Promise<never> {
  throw new Error('AssumeRoleWithWebIdentity is sent unsigned; no AWS key is configured to sign with');
}
