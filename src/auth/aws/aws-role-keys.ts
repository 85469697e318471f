import { keys } from '../../config/index.js';
import { checkTokenEndpointUrl } from '../token-endpoint/index.js';

/**
 * The configuration keys of an AWS role to assume, shared by aws_access_key (with `aws_role_arn`)
 * and aws_web_identity. Their form is checked with the other keys, so `validate` refuses a
 * malformed ARN before any request, as STS would after one.
 */

/** A role ARN as IAM writes it: `arn:<partition>:iam::<12-digit account>:role/<path/name>`. */
const ROLE_ARN = /^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]{1,512}$/;
/** RoleSessionName as STS accepts it. */
const ROLE_SESSION_NAME = /^[\w+=,.@-]{2,64}$/;
/** ExternalId as STS accepts it. */
const EXTERNAL_ID = /^[\w+=,.@:/-]{2,1224}$/;

const roleArnMessage = 'must be a role ARN, arn:aws:iam::<12-digit account id>:role/<name>';

export const roleArnKey = () => keys.text().refine((v) => ROLE_ARN.test(v.trim()), { message: roleArnMessage });
export const optionalRoleArnKey = () =>
  keys.optionalText().refine((v) => v === undefined || ROLE_ARN.test(v.trim()), { message: roleArnMessage });
export const externalIdKey = () =>
  keys.optionalText().refine((v) => v === undefined || EXTERNAL_ID.test(v), {
    message: 'must be 2 to 1224 letters, digits or + = , . @ : / - _, as STS accepts it',
  });

/** The keys every role needs besides its ARN. */
export const roleSessionKeys = {
  aws_role_session_name: keys.optionalText().refine((v) => v === undefined || ROLE_SESSION_NAME.test(v), {
    message: 'must be 2 to 64 letters, digits or + = , . @ - _, as STS accepts it',
  }),
  aws_sts_endpoint: keys.optionalUrl(),
  aws_region: keys.optionalText(),
};

export interface RoleSessionSettings {
  sessionName: string;
  /** The region STS is asked in: `aws_region`, else us-east-1 (where AWS's global endpoint lives). */
  region: string;
  endpoint: URL | undefined;
}

/**
 * The session name (default `connector-auth-<ms since epoch>`, unique as the AWS SDK's default is,
 * so CloudTrail tells one sync from another), the region and the endpoint, checked.
 */
export function roleSessionSettings(
  k: {
    aws_role_session_name?: string | undefined;
    aws_sts_endpoint?: URL | undefined;
    aws_region?: string | undefined;
  },
  now: number,
  scope: string,
): RoleSessionSettings {
  const endpoint = k.aws_sts_endpoint;
  // The answer holds the role's secret key and session token: never in clear over a network.
  if (endpoint)
    checkTokenEndpointUrl(
      endpoint,
      'aws_sts_endpoint',
      scope,
      "carry the role's temporary credentials",
      'the STS endpoint',
    );
  return {
    sessionName: k.aws_role_session_name ?? `connector-auth-${now}`,
    region: k.aws_region?.trim() || 'us-east-1',
    endpoint,
  };
}
