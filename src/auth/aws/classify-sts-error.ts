import {
  AuthenticationError,
  ConfigurationError,
  SourceUnreachableError,
  isConnectorAuthError,
  type ConnectorAuthError,
} from '../../errors/index.js';
import type { TlsSettings } from '../../network/index.js';
import { awsAnswerSaid, awsServiceUnavailable } from './aws-answer.js';
import { sdkNetworkFailure } from './sdk-network-failure.js';
import { clockTooFarOff, secretNotTheKeys, type SignatureRefusal } from './signature-refusals.js';

/**
 * What a failed STS call means, as one of the project's errors naming the key to fix.
 *
 * The AWS SDK throws STS's answer with its error code as `name` and the status in
 * `$metadata.httpStatusCode`; STS's codes are documented and its messages hold no secret (they name
 * ARNs, which are not secret). STS says the same AccessDenied whether the role does not exist, does
 * not trust the caller or wants another external id, so that message names the role and, when one is
 * configured, the external id. Anything without a status is the network's (refused, TLS, timeout).
 */

export interface StsFailureContext {
  /** The credential, for messages: "aws role arn:… (…)". */
  description: string;
  roleArn: string;
  /** The region the request was signed for. */
  region: string;
  via: { accessKeyId: string; externalId: string | undefined } | 'web_identity';
  url: URL;
  /** `aws_sts_endpoint` when configured, else `aws_region` (which picks AWS's endpoint). */
  urlKey: string;
  timeoutSeconds: number;
  tls: TlsSettings;
  /** The call's own deadline ran out (the SDK then reports only that it was aborted). */
  timedOut: boolean;
}

export async function classifyStsError(error: unknown, context: StsFailureContext): Promise<ConnectorAuthError> {
  if (isConnectorAuthError(error)) return error;
  const action = context.via === 'web_identity' ? 'AssumeRoleWithWebIdentity' : 'AssumeRole';
  const target = `${context.description}: STS ${action} at ${context.url.host}`;
  const status = (error as { $metadata?: { httpStatusCode?: unknown } } | undefined)?.$metadata?.httpStatusCode;
  if (!(error instanceof Error) || typeof status !== 'number') return networkFailure(error, target, context);
  const refusal = stsRefusal(error, status, target, context);
  return (STS_REFUSALS.get(refusal.code) ?? stsAnswered)(refusal);
}

/** STS's answer, with what every message about it says. */
interface StsRefusal {
  readonly error: Error;
  readonly status: number;
  /** STS's error code. */
  readonly code: string;
  /** "<what was attempted>: STS <action> at <host>". */
  readonly target: string;
  /** STS's code and message, and the status. */
  readonly said: string;
  /** The signing key's id; undefined for a web identity. */
  readonly keyId: string | undefined;
  /** An external id is configured. */
  readonly externalId: boolean;
  readonly context: StsFailureContext;
}

function stsRefusal(error: Error, status: number, target: string, context: StsFailureContext): StsRefusal {
  // STS's code: the name, except where the SDK models an error under another name and keeps the
  // code in `Code` (InvalidIdentityToken is thrown as InvalidIdentityTokenException).
  const code =
    typeof (error as { Code?: unknown }).Code === 'string' ? String((error as { Code?: unknown }).Code) : error.name;
  const said = awsAnswerSaid(code, error.message, status);
  return {
    error,
    status,
    code,
    target,
    said,
    keyId: context.via === 'web_identity' ? undefined : context.via.accessKeyId,
    externalId: context.via !== 'web_identity' && context.via.externalId !== undefined,
    context,
  };
}

/** STS's documented error codes, each to the key that fixes it; any other code is `stsAnswered`. */
const STS_REFUSALS = new Map<string, (r: StsRefusal) => ConnectorAuthError>([
  ['InvalidClientTokenId', accessKeyUnknown],
  ['SignatureDoesNotMatch', signatureRefused],
  ['ExpiredToken', sessionTokenExpired],
  ['AccessDenied', accessDenied],
  ['RegionDisabledException', regionDisabled],
  ['InvalidIdentityToken', webIdentityTokenRefused],
  ['InvalidIdentityTokenException', webIdentityTokenRefused],
  ['IDPRejectedClaim', webIdentityTokenRefused],
  ['IDPRejectedClaimException', webIdentityTokenRefused],
  // The web identity token's; a session key's is ExpiredToken, above.
  ['ExpiredTokenException', webIdentityTokenExpired],
  ['ValidationError', requestInvalid],
]);

function accessKeyUnknown({ target, keyId, said, error }: StsRefusal): ConnectorAuthError {
  return new AuthenticationError(`${target} failed: STS does not know access key id ${keyId ?? ''} (${said})`, {
    code: 'sts_access_key_unknown',
    key: 'aws_access_key_id',
    hint: "check 'aws_access_key_id': the key may be deleted or inactive, or belong to another AWS partition",
    cause: error,
  });
}

/** A signature STS refused: signed for another region, too late, or with the wrong secret. */
function signatureRefused(r: StsRefusal): ConnectorAuthError {
  const { target, said, error } = r;
  if (/scoped to a valid region/i.test(error.message))
    return new ConfigurationError(
      `${target} failed: the request was signed for region '${r.context.region}', which this STS endpoint is not in (${said})`,
      {
        code: 'sts_wrong_region',
        key: 'aws_region',
        hint: "set 'aws_region' to the region of 'aws_sts_endpoint'",
        cause: error,
      },
    );
  const refusal: SignatureRefusal = {
    service: { code: 'sts', name: 'STS' },
    failed: `${target} failed`,
    said,
    cause: error,
  };
  if (/signature expired/i.test(error.message)) return clockTooFarOff(refusal);
  return secretNotTheKeys(refusal, r.keyId ?? 'the key');
}

function sessionTokenExpired({ target, said, error }: StsRefusal): ConnectorAuthError {
  return new AuthenticationError(
    `${target} failed: the session token of the key that asks for the role has expired (${said})`,
    {
      code: 'sts_session_token_expired',
      key: 'aws_session_token',
      hint: "give a long-term access key (AKIA…) in 'aws_access_key_id' and 'aws_secret_access_key', or fresh temporary ones with 'aws_session_token'",
      cause: error,
    },
  );
}

/** STS says the same whether the role is missing, does not trust the caller or wants another external id. */
function accessDenied(r: StsRefusal): ConnectorAuthError {
  const { target, said, error, keyId, externalId } = r;
  const webIdentity = r.context.via === 'web_identity';
  return new AuthenticationError(
    `${target} failed: not allowed to assume ${r.context.roleArn}: the role may not exist, or its trust policy does not allow ${
      webIdentity
        ? "this token's issuer and subject"
        : `access key ${keyId}${externalId ? ' with this external id' : ''}`
    } (${said})`,
    {
      code: 'sts_access_denied',
      key: 'aws_role_arn',
      hint: webIdentity
        ? "check 'aws_role_arn', and that the role's trust policy names the token's OIDC provider and allows sts:AssumeRoleWithWebIdentity for its subject and audience"
        : `check 'aws_role_arn'${externalId ? " and 'aws_external_id'" : ''}; the role's trust policy must allow sts:AssumeRole for the key's user or role${
            externalId ? ', with this external id' : " (if it requires an external id, set 'aws_external_id')"
          }, and the key's own policy must allow sts:AssumeRole on the role`,
      cause: error,
    },
  );
}

function regionDisabled({ target, said, error, context }: StsRefusal): ConnectorAuthError {
  return new ConfigurationError(
    `${target} failed: STS is not activated in region '${context.region}' for this account (${said})`,
    {
      code: 'sts_region_disabled',
      key: 'aws_region',
      hint: "activate the region for STS in the IAM console (Account settings), or set 'aws_region' to one that is",
      cause: error,
    },
  );
}

function webIdentityTokenRefused({ target, said, error }: StsRefusal): ConnectorAuthError {
  return new AuthenticationError(`${target} failed: STS refused the web identity token (${said})`, {
    code: 'sts_web_identity_token_refused',
    key: 'web_identity_token_file',
    hint: "check that 'web_identity_token_file' holds a token of the OIDC provider the role trusts, for the audience its IAM provider names (sts.amazonaws.com on EKS)",
    cause: error,
  });
}

function webIdentityTokenExpired({ target, said, error }: StsRefusal): ConnectorAuthError {
  return new AuthenticationError(`${target} failed: the web identity token has expired (${said})`, {
    code: 'sts_web_identity_token_expired',
    key: 'web_identity_token_file',
    hint: "the platform (kubelet, CI runner) must keep rewriting 'web_identity_token_file'; check that it still does, or that the file is the one it writes",
    cause: error,
  });
}

function requestInvalid({ target, said, error }: StsRefusal): ConnectorAuthError {
  const sessionName = /session ?name/i.test(error.message);
  return new ConfigurationError(`${target} failed: STS refused the request as malformed (${said})`, {
    code: 'sts_request_invalid',
    key: sessionName ? 'aws_role_session_name' : 'aws_role_arn',
    hint: sessionName
      ? "'aws_role_session_name' takes 2 to 64 letters, digits and + = , . @ - _"
      : "check 'aws_role_arn' (arn:aws:iam::<account>:role/<name>)",
    cause: error,
  });
}

/** Any other answer: STS failing or throttling, or an endpoint that is not STS. */
function stsAnswered({ target, said, error, status, code, context }: StsRefusal): ConnectorAuthError {
  const unavailable = awsServiceUnavailable(status) || code === 'Throttling';
  return new SourceUnreachableError(`${target} failed: STS answered ${said}`, {
    code: unavailable ? 'sts_unavailable' : 'sts_error',
    key: context.urlKey,
    hint: unavailable
      ? 'STS failed or throttled after retries; try again later'
      : `check '${context.urlKey}'${context.urlKey === 'aws_sts_endpoint' ? ': it must be an AWS STS endpoint' : ''}`,
    cause: error,
  });
}

function networkFailure(error: unknown, target: string, context: StsFailureContext): Promise<ConnectorAuthError> {
  const request = {
    method: 'POST',
    url: context.url,
    credential: context.description,
    timeoutSeconds: context.timeoutSeconds,
    urlKey: context.urlKey,
  };
  return sdkNetworkFailure(error, request, { tls: context.tls, target }, context.timedOut === true);
}
