import { z } from 'zod';
import { keys } from '../../config/index.js';
import { defineAuthMethod } from '../auth-method.js';
import type { AwsCredential } from '../aws/index.js';
import { platformRoleCredential, type PlatformRole } from './aws-document-session.js';
import { instanceMetadataSession } from './instance-metadata-session.js';
import { LINK_LOCAL_METADATA_BASE, metadataEndpointKey, metadataUrl } from './metadata-endpoint.js';

/**
 * The IAM role attached to the EC2 instance the connector runs on (its instance profile): temporary
 * credentials from the instance metadata service (IMDSv2), renewed before they expire, and no AWS
 * key in configuration.json. The AWS counterpart of gcp_metadata and azure_managed_identity; on EKS,
 * a pod's own role is aws_web_identity.
 */
const INSTANCE_PROFILE: PlatformRole = {
  method: 'aws_instance_profile',
  description: 'aws instance profile role (EC2 instance metadata)',
  signer: "the instance profile's role",
};

export default defineAuthMethod({
  name: 'aws_instance_profile',
  summary:
    "the EC2 instance's own IAM role (instance profile): credentials from the instance metadata service (IMDSv2), no AWS key in the configuration",
  // No secret in configuration.json: EC2 issues and rotates the role's credentials.
  rotationDays: null,
  keys: z.object({
    metadata_endpoint: metadataEndpointKey(),
    aws_region: keys.optionalText(),
  }),
  create(k, context): AwsCredential {
    const session = instanceMetadataSession({
      base: metadataUrl(k.metadata_endpoint, LINK_LOCAL_METADATA_BASE, ''),
      elsewhere: "use auth_method 'aws_access_key' or 'aws_web_identity'",
      description: INSTANCE_PROFILE.description,
      context,
    });
    return platformRoleCredential(session, INSTANCE_PROFILE, k.aws_region);
  },
});
