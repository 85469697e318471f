import { z } from 'zod';
import { keys } from '../../config/index.js';
import { defineAuthMethod } from '../auth-method.js';
import { awsSessionCredential, type AwsCredential } from './aws-credential.js';
import { roleArnKey, roleSessionKeys, roleSessionSettings } from './aws-role-keys.js';
import { roleSession } from './aws-role-session.js';
import { tokenFileReader } from '../tokens/index.js';

/**
 * An AWS role assumed with a web identity token (STS AssumeRoleWithWebIdentity): the workload's own
 * identity, no AWS key in configuration.json. On EKS (IAM roles for service accounts) the kubelet
 * writes a token signed by the cluster's OIDC issuer to a file and rewrites it before it expires; a
 * CI runner or another cloud's workload identity does the same with its own issuer. The role's trust
 * policy names the issuer, and STS checks the token's signature, audience and expiry.
 *
 * The file is read again for every STS request (each renewal of the role's credentials), because the
 * platform rotates it; its content is registered as a secret as soon as it is read. The request
 * itself is unsigned: the token is the credential.
 */
export default defineAuthMethod({
  name: 'aws_web_identity',
  // No secret in configuration.json: the platform issues and rotates what it signs with.
  rotationDays: null,
  summary:
    "an AWS role assumed with the workload's web identity token (EKS service account, CI OIDC): STS AssumeRoleWithWebIdentity, no AWS key in the configuration",
  keys: z.object({
    aws_role_arn: roleArnKey(),
    web_identity_token_file: keys.text(),
    ...roleSessionKeys,
  }),
  create(k, context): AwsCredential {
    const roleArn = k.aws_role_arn.trim();
    const file = k.web_identity_token_file.trim();
    const description = `aws role ${roleArn} (web identity)`;
    const readToken = tokenFileReader({
      file,
      key: 'web_identity_token_file',
      noun: 'web identity token',
      name: 'web_identity_token',
      whereFrom: "on EKS, the pod's AWS_WEB_IDENTITY_TOKEN_FILE",
      description,
      secrets: context.secrets,
    });
    const session = roleSession({
      roleArn,
      ...roleSessionSettings(k, context.now(), "auth_method 'aws_web_identity'"),
      via: { webIdentityToken: readToken },
      description,
      context,
    });
    return awsSessionCredential(session, {
      method: 'aws_web_identity',
      description,
      signer: `role ${roleArn}`,
      sessionKey: 'aws_role_arn',
      region: k.aws_region?.trim(),
    });
  },
});
