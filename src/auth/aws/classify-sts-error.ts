import {
  AuthenticationError,
  ConfigurationError,
  SourceUnreachableError,
  isConnectorAuthError,
  type ConnectorAuthError,
} from '../../errors/index.js';
import { oneLine, type TlsSettings } from '../../network/index.js';
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
  // STS's code: the name, except where the SDK models an error under another name and keeps the
  // code in `Code` (InvalidIdentityToken is thrown as InvalidIdentityTokenException).
  const code =
    typeof (error as { Code?: unknown }).Code === 'string' ? String((error as { Code?: unknown }).Code) : error.name;
  const said = `${code}${error.message && error.message !== code ? `: ${oneLine(error.message)}` : ''} (HTTP ${status})`;
  const keyId = context.via === 'web_identity' ? undefined : context.via.accessKeyId;
  const refusal: SignatureRefusal = {
    service: { code: 'sts', name: 'STS' },
    failed: `${target} failed`,
    said,
    cause: error,
  };
  const externalId = context.via !== 'web_identity' && context.via.externalId !== undefined;
  switch (code) {
    case 'InvalidClientTokenId':
      return new AuthenticationError(`${target} failed: STS does not know access key id ${keyId ?? ''} (${said})`, {
        code: 'sts_access_key_unknown',
        key: 'aws_access_key_id',
        hint: "check 'aws_access_key_id': the key may be deleted or inactive, or belong to another AWS partition",
        cause: error,
      });
    case 'SignatureDoesNotMatch':
      if (/scoped to a valid region/i.test(error.message))
        return new ConfigurationError(
          `${target} failed: the request was signed for region '${context.region}', which this STS endpoint is not in (${said})`,
          {
            code: 'sts_wrong_region',
            key: 'aws_region',
            hint: "set 'aws_region' to the region of 'aws_sts_endpoint'",
            cause: error,
          },
        );
      if (/signature expired/i.test(error.message)) return clockTooFarOff(refusal);
      return secretNotTheKeys(refusal, keyId ?? 'the key');
    case 'ExpiredToken':
      return new AuthenticationError(
        `${target} failed: the session token of the key that asks for the role has expired (${said})`,
        {
          code: 'sts_session_token_expired',
          key: 'aws_session_token',
          hint: "give a long-term access key (AKIA…) in 'aws_access_key_id' and 'aws_secret_access_key', or fresh temporary ones with 'aws_session_token'",
          cause: error,
        },
      );
    case 'AccessDenied':
      return new AuthenticationError(
        `${target} failed: not allowed to assume ${context.roleArn}: the role may not exist, or its trust policy does not allow ${
          context.via === 'web_identity'
            ? "this token's issuer and subject"
            : `access key ${keyId}${externalId ? ' with this external id' : ''}`
        } (${said})`,
        {
          code: 'sts_access_denied',
          key: 'aws_role_arn',
          hint:
            context.via === 'web_identity'
              ? "check 'aws_role_arn', and that the role's trust policy names the token's OIDC provider and allows sts:AssumeRoleWithWebIdentity for its subject and audience"
              : `check 'aws_role_arn'${externalId ? " and 'aws_external_id'" : ''}; the role's trust policy must allow sts:AssumeRole for the key's user or role${
                  externalId ? ', with this external id' : " (if it requires an external id, set 'aws_external_id')"
                }, and the key's own policy must allow sts:AssumeRole on the role`,
          cause: error,
        },
      );
    case 'RegionDisabledException':
      return new ConfigurationError(
        `${target} failed: STS is not activated in region '${context.region}' for this account (${said})`,
        {
          code: 'sts_region_disabled',
          key: 'aws_region',
          hint: "activate the region for STS in the IAM console (Account settings), or set 'aws_region' to one that is",
          cause: error,
        },
      );
    case 'InvalidIdentityToken':
    case 'InvalidIdentityTokenException':
    case 'IDPRejectedClaim':
    case 'IDPRejectedClaimException':
      return new AuthenticationError(`${target} failed: STS refused the web identity token (${said})`, {
        code: 'sts_web_identity_token_refused',
        key: 'web_identity_token_file',
        hint: "check that 'web_identity_token_file' holds a token of the OIDC provider the role trusts, for the audience its IAM provider names (sts.amazonaws.com on EKS)",
        cause: error,
      });
    // The web identity token's; a session key's is ExpiredToken, above.
    case 'ExpiredTokenException':
      return new AuthenticationError(`${target} failed: the web identity token has expired (${said})`, {
        code: 'sts_web_identity_token_expired',
        key: 'web_identity_token_file',
        hint: "the platform (kubelet, CI runner) must keep rewriting 'web_identity_token_file'; check that it still does, or that the file is the one it writes",
        cause: error,
      });
    case 'ValidationError':
      return new ConfigurationError(`${target} failed: STS refused the request as malformed (${said})`, {
        code: 'sts_request_invalid',
        key: /session ?name/i.test(error.message) ? 'aws_role_session_name' : 'aws_role_arn',
        hint: /session ?name/i.test(error.message)
          ? "'aws_role_session_name' takes 2 to 64 letters, digits and + = , . @ - _"
          : "check 'aws_role_arn' (arn:aws:iam::<account>:role/<name>)",
        cause: error,
      });
    default:
      return new SourceUnreachableError(`${target} failed: STS answered ${said}`, {
        code: status >= 500 || status === 429 || code === 'Throttling' ? 'sts_unavailable' : 'sts_error',
        key: context.urlKey,
        hint:
          status >= 500 || status === 429 || code === 'Throttling'
            ? 'STS failed or throttled after retries; try again later'
            : `check '${context.urlKey}'${context.urlKey === 'aws_sts_endpoint' ? ': it must be an AWS STS endpoint' : ''}`,
        cause: error,
      });
  }
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
