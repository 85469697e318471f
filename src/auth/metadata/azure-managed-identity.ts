import { z } from 'zod';
import { keys } from '../../config/index.js';
import { defineAuthMethod } from '../auth-method.js';
import { metadataEndpointKey } from './metadata-endpoint.js';
import {
  metadataTokenCredential,
  type MetadataTokenRequest,
  type MetadataTokenService,
} from './metadata-token-client.js';
import { RETRY_STATUSES } from '../token-endpoint/index.js';

/**
 * The managed identity of the Azure virtual machine or scale set the connector runs on: access
 * tokens for `resource` from the Instance Metadata Service (IMDS), no secret at all.
 *
 * The request is `GET /metadata/identity/oauth2/token?api-version=2018-02-01&resource=…` with the
 * header `Metadata: true` (IMDS refuses requests without it, against SSRF), and for a user-assigned
 * identity one of `client_id`, `object_id` or `msi_res_id`. Its answers are OAuth-shaped
 * (`access_token`, `expires_in` as a string; errors as `{error, error_description}`: `invalid_resource`
 * for an unknown resource, `invalid_request` "Identity not found" for an identity not assigned to the
 * machine). As Azure documents and Azure Identity does, 404 (IMDS is being updated) and 410 (it is
 * restarting) are retried with 429 and 5xx, within the budget of timeout_seconds.
 */
const AZURE_IMDS: MetadataTokenService = {
  method: 'azure_managed_identity',
  requestHeader: { metadata: 'true' },
  retryStatuses: new Set([...RETRY_STATUSES, 404, 410]),
  unreachableHint:
    "IMDS answers only on Azure virtual machines and scale sets; elsewhere use auth_method 'oauth2_client_credentials' with the app registration's client secret",
};

const IDENTITY_KEYS = [
  ['azure_client_id', 'client_id'],
  ['azure_object_id', 'object_id'],
  ['azure_resource_id', 'msi_res_id'],
] as const;

export default defineAuthMethod({
  name: 'azure_managed_identity',
  // No secret in configuration.json: the platform issues and rotates what it signs with.
  rotationDays: null,
  summary:
    "the Azure VM's managed identity (system- or user-assigned): access tokens for 'resource' from IMDS, no secret in the configuration",
  keys: z
    .object({
      resource: keys.text(),
      azure_client_id: keys.optionalText(),
      azure_object_id: keys.optionalText(),
      azure_resource_id: keys.optionalText(),
      metadata_endpoint: metadataEndpointKey(),
    })
    .refine((k) => IDENTITY_KEYS.filter(([key]) => k[key] !== undefined).length <= 1, {
      path: ['azure_client_id'],
      message:
        'names a user-assigned identity, and so do azure_object_id or azure_resource_id: give only one of the three',
    }),
  create(k, context) {
    const chosen = IDENTITY_KEYS.find(([key]) => k[key] !== undefined);
    // With no identity key, IMDS uses the system-assigned identity; "Identity not found" then means
    // there is none, and naming a user-assigned one is the other fix.
    const identityKey = chosen?.[0] ?? 'azure_client_id';
    const request: MetadataTokenRequest = {
      path: 'metadata/identity/oauth2/token',
      query: {
        'api-version': '2018-02-01',
        resource: k.resource,
        ...(chosen ? { [chosen[1]]: k[chosen[0]]!.trim() } : {}),
      },
      description: chosen
        ? `Azure managed identity ${chosen[1]} '${k[chosen[0]]}'`
        : 'Azure system-assigned managed identity',
      errorKeys: {
        invalid_client: identityKey,
        invalid_grant: identityKey,
        unauthorized_client: identityKey,
        invalid_resource: 'resource',
        invalid_target: 'resource',
        invalid_scope: 'resource',
        other: identityKey,
      },
      // An API refuses a token issued for another audience: 'resource' is what to check first.
      rejectedKey: 'resource',
    };
    return metadataTokenCredential(AZURE_IMDS, request, k.metadata_endpoint, context);
  },
});
