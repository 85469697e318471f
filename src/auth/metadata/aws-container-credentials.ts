import { z } from 'zod';
import { keys } from '../../config/index.js';
import { defineAuthMethod } from '../auth-method.js';
import type { AwsCredential } from '../aws/index.js';
import { platformRoleCredential, type PlatformRole } from './aws-document-session.js';
import { containerCredentialsSession } from './container-credentials-session.js';
import { localCredentialsUrlKey } from './metadata-endpoint.js';

/**
 * The IAM role of the ECS task, or of the EKS pod (Pod Identity), the connector runs in: credentials
 * from the container credentials endpoint the platform runs beside it, no AWS key in
 * configuration.json. The platform gives the endpoint's URL (and, for Pod Identity, a token file) in
 * the workload's environment; configuration.json names them, as it names everything else.
 */
const CONTAINER_ROLE: PlatformRole = {
  method: 'aws_container_credentials',
  description: 'aws container role (ECS task / EKS Pod Identity)',
  signer: "the task's or pod's role",
};

export default defineAuthMethod({
  name: 'aws_container_credentials',
  summary:
    'the IAM role of the ECS task or EKS pod (Pod Identity): credentials from the container credentials endpoint, no AWS key in the configuration',
  // No secret in configuration.json: the platform issues and rotates the role's credentials.
  rotationDays: null,
  keys: z.object({
    container_credentials_url: localCredentialsUrlKey(),
    container_authorization_token_file: keys.optionalText(),
    aws_region: keys.optionalText(),
  }),
  create(k, context): AwsCredential {
    const session = containerCredentialsSession({
      url: k.container_credentials_url,
      authorizationTokenFile: k.container_authorization_token_file?.trim(),
      description: CONTAINER_ROLE.description,
      context,
    });
    return platformRoleCredential(session, CONTAINER_ROLE, k.aws_region);
  },
});
