import {
  awsAnswerSaid,
  awsServiceUnavailable,
  clockTooFarOff,
  sdkNetworkFailure,
  secretNotTheKeys,
  type CredentialWith,
} from '../../auth/index.js';
import {
  AuthenticationError,
  ConnectorError,
  SourceUnreachableError,
  type ConnectorAuthError,
} from '../../errors/index.js';
import type { HttpRoute, TlsSettings } from '../../network/index.js';
import { classifyUnlessOurs } from '../classify-failure.js';
import { describeLocation, type S3Location } from './s3-settings.js';

/**
 * What a failed S3 call means, as one of the project's errors: a line naming the key id, the bucket
 * and what S3 said, and the key to fix.
 *
 * The AWS SDK throws two kinds of error. An answer from S3 carries its error code as `name` and the
 * HTTP status in `$metadata.httpStatusCode`; S3's codes are documented and stable, and its messages
 * never hold a secret (a SignatureDoesNotMatch body holds the string to sign, which the SDK keeps
 * out of the message; only the message is quoted here). Anything else is the network's: refused,
 * unreachable, a TLS failure, a timeout, classified as for any HTTP source.
 */

export interface S3FailureContext {
  location: S3Location;
  credential: CredentialWith<'awsKeys'>;
  timeoutSeconds: number;
  tls: TlsSettings;
  /** The URL the requests go to: the endpoint, or AWS's for the bucket's region. */
  url: URL;
  /** The key that names `url`: `endpoint` when configured, else `region`. */
  urlKey: string;
  /** True when the call's own deadline ran out (the SDK then reports only that it was aborted). */
  timedOut?: boolean;
  /** Through an SSH tunnel: the look-only handshake that names an untrusted certificate goes that way too. */
  route?: HttpRoute;
}

/** What S3 answered, and to what: the helpers of fromS3Failure read it. */
interface S3Answer {
  service: ServiceError;
  said: string;
  target: string;
  context: S3FailureContext;
  error: unknown;
}

interface ServiceError {
  name: string;
  message: string;
  status: number;
  /** The bucket's region, when S3 names it in a redirect. */
  region: string | undefined;
}

/** The probe's listing, and the connection faults of any call. */
export async function classifyS3Error(
  error: unknown,
  operation: string,
  context: S3FailureContext,
): Promise<ConnectorAuthError> {
  const where = `S3 ${operation} ${describeLocation(context.location)}`;
  return classifyUnlessOurs(error, context.credential, where, (target) => fromS3Failure(error, target, context));
}

/** An answer from S3 (its error code and status), or the network's failure. */
async function fromS3Failure(error: unknown, target: string, context: S3FailureContext): Promise<ConnectorAuthError> {
  const service = serviceError(error);
  if (!service) return networkFailure(error, target, context);
  const said = awsAnswerSaid(service.name, service.message, service.status);
  const { bucket } = context.location;
  const { signer, sessionKey } = context.credential.awsKeys;
  const refusal = { service: { code: 's3' as const, name: 'S3' }, failed: `${target} failed`, said, cause: error };
  const answer: S3Answer = { service, said, target, context, error };
  const roleRefused = roleCredentialsRefused(answer);
  if (roleRefused) return roleRefused;
  switch (service.name) {
    case 'InvalidAccessKeyId':
      return new AuthenticationError(`${target} failed: S3 does not know ${signer} (${said})`, {
        code: 's3_access_key_unknown',
        key: 'aws_access_key_id',
        hint: "check 'aws_access_key_id': the key may be deleted or inactive, or belong to another AWS partition or S3 service",
        cause: error,
      });
    case 'SignatureDoesNotMatch':
      return secretNotTheKeys(refusal, signer);
    case 'InvalidToken':
    case 'ExpiredToken':
    case 'TokenRefreshRequired':
      return new AuthenticationError(`${target} failed: S3 refused the session token (${said})`, {
        code: 's3_session_token_refused',
        key: 'aws_session_token',
        hint: "temporary credentials expire: set fresh 'aws_access_key_id', 'aws_secret_access_key' and 'aws_session_token' together",
        cause: error,
      });
    case 'RequestTimeTooSkewed':
      return clockTooFarOff(refusal);
    case 'AccessDenied':
    case 'AllAccessDisabled':
    case 'Forbidden':
      return new AuthenticationError(`${target} failed: access denied to ${signer} (${said})`, {
        code: 's3_access_denied',
        key: sessionKey ?? 'aws_access_key_id',
        hint: `give ${sessionKey ? signer : "the key's user or role"} s3:ListBucket on arn:aws:s3:::${bucket} (and s3:GetObject on its objects), or check 'bucket'`,
        cause: error,
      });
    case 'NoSuchBucket':
      return new SourceUnreachableError(`${target} failed: no bucket '${bucket}' (${said})`, {
        code: 's3_no_such_bucket',
        key: 'bucket',
        hint: `check 'bucket'${context.urlKey === 'endpoint' ? " and 'endpoint'" : " and 'region'"}`,
        cause: error,
      });
    case 'PermanentRedirect':
    case 'AuthorizationHeaderMalformed':
    case 'IllegalLocationConstraintException':
      return wrongRegion(answer);
    default:
      return s3Answered(answer);
  }
}

/** A role's temporary key is AWS's to issue and to know: refused, it is the role to look at. */
function roleCredentialsRefused({ service, said, target, context, error }: S3Answer): ConnectorAuthError | undefined {
  const { signer, sessionKey } = context.credential.awsKeys;
  if (
    !sessionKey ||
    !['InvalidAccessKeyId', 'SignatureDoesNotMatch', 'InvalidToken', 'ExpiredToken', 'TokenRefreshRequired'].includes(
      service.name,
    )
  )
    return undefined;
  return new AuthenticationError(`${target} failed: S3 refused the temporary credentials of ${signer} (${said})`, {
    code: 's3_role_credentials_refused',
    key: context.urlKey === 'endpoint' ? 'endpoint' : sessionKey,
    hint:
      context.urlKey === 'endpoint'
        ? "a role's temporary credentials are AWS's; an S3-compatible server at 'endpoint' knows only its own keys (use aws_access_key without 'aws_role_arn')"
        : "check this machine's clock (NTP) and that the role belongs to the bucket's AWS partition",
    cause: error,
  });
}

/** Any other answer: S3 failing or throttling, or a request it did not take. */
function s3Answered({ service, said, target, context, error }: S3Answer): ConnectorAuthError {
  return new SourceUnreachableError(`${target} failed: S3 answered ${said}`, {
    code: awsServiceUnavailable(service.status) ? 's3_unavailable' : 's3_error',
    key: context.urlKey === 'endpoint' ? 'endpoint' : 'bucket',
    hint: awsServiceUnavailable(service.status)
      ? 'S3 failed or is throttling this key after retries; try again later'
      : `check 'bucket' and 'prefix'${context.urlKey === 'endpoint' ? ", and that 'endpoint' is an S3 API" : ''}`,
    cause: error,
  });
}

/** S3 names the bucket's region when it is another than the one asked. */
function wrongRegion({ service, said, target, context, error }: S3Answer): ConnectorAuthError {
  return new SourceUnreachableError(
    `${target} failed: the bucket is not in region '${context.location.region}'${service.region ? ` but in '${service.region}'` : ''} (${said})`,
    {
      code: 's3_wrong_region',
      key: 'region',
      hint: service.region
        ? `set 'region' to ${service.region}`
        : "set 'region' to the bucket's region (the S3 console shows it)",
      cause: error,
    },
  );
}

/**
 * S3's refusals of the request's credentials rather than of one object: a 403 with one of these codes
 * is the key's, the session token's or the clock's to fix whatever object was asked for, so an object
 * call explains it as the probe does (exit 3, naming the key), not as the object's access denied.
 */
const CREDENTIAL_REFUSALS = new Set([
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
  'RequestTimeTooSkewed',
  'InvalidToken',
  'ExpiredToken',
  'TokenRefreshRequired',
]);

/**
 * A call of the connector's update() on one object: a missing or refused object is the connector's
 * error (exit 1), said with its s3:// name; a lost connection or a rejected key is classified as in
 * the probe.
 */
export async function classifyObjectError(
  error: unknown,
  operation: string,
  key: string,
  context: S3FailureContext,
): Promise<Error> {
  const service = serviceError(error);
  const name = `s3://${context.location.bucket}/${key}`;
  if (
    service &&
    (service.name === 'NoSuchKey' ||
      service.name === 'NotFound' ||
      (service.status === 404 && service.name !== 'NoSuchBucket'))
  )
    return new ConnectorError(`S3 ${operation} ${name}: no such object`, { code: 's3_no_such_key', cause: error });
  if (
    service &&
    (service.name === 'AccessDenied' || service.name === 'Forbidden' || service.status === 403) &&
    !CREDENTIAL_REFUSALS.has(service.name)
  )
    return new ConnectorError(
      `S3 ${operation} ${name}: access denied to ${context.credential.awsKeys.signer} (${service.name}, HTTP ${service.status})`,
      {
        code: 's3_access_denied',
        cause: error,
      },
    );
  return classifyS3Error(error, `${operation} ${key}`, context);
}

function networkFailure(error: unknown, target: string, context: S3FailureContext): Promise<ConnectorAuthError> {
  const request = {
    method: 'GET',
    url: context.url,
    credential: context.credential.description,
    timeoutSeconds: context.timeoutSeconds,
    urlKey: context.urlKey,
    clientCertificate: context.tls.clientCertificate,
  };
  const tls = { tls: context.tls, target, ...(context.route ? { route: context.route } : {}) };
  return sdkNetworkFailure(error, request, tls, context.timedOut === true);
}

function serviceError(error: unknown): ServiceError | undefined {
  if (!(error instanceof Error)) return undefined;
  const status = (error as { $metadata?: { httpStatusCode?: unknown } }).$metadata?.httpStatusCode;
  if (typeof status !== 'number') return undefined;
  const region = (error as { Region?: unknown }).Region ?? headerOf(error, 'x-amz-bucket-region');
  return {
    name: error.name,
    message: error.message,
    status,
    region: typeof region === 'string' && region ? region : undefined,
  };
}

function headerOf(error: Error, name: string): unknown {
  const headers = (error as { $response?: { headers?: Record<string, unknown> } }).$response?.headers;
  return headers?.[name];
}
