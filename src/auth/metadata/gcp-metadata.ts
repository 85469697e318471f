import { z } from 'zod';
import { keys } from '../../config/index.js';
import { defineAuthMethod } from '../auth-method.js';
import { metadataEndpointKey } from './metadata-endpoint.js';
import {
  metadataTokenCredential,
  type MetadataTokenRequest,
  type MetadataTokenService,
} from './metadata-token-client.js';

/**
 * The service account attached to the Google Cloud workload (Compute Engine, GKE with workload
 * identity, Cloud Run, Cloud Functions): access tokens from the metadata server, no key at all.
 *
 * The request is `GET /computeMetadata/v1/instance/service-accounts/<account>/token` with the header
 * `Metadata-Flavor: Google` (the server refuses requests without it, so a page fetched through an SSRF
 * cannot mint tokens), optionally `?scopes=a,b` where the platform allows scopes other than the
 * instance's. Every answer of the real server carries `Metadata-Flavor: Google` too: an answer without
 * it comes from something else listening at that address and is not trusted (google-auth-library does
 * the same). A 404 means the account is not attached to this workload.
 */
const GCE_METADATA_SERVER: MetadataTokenService = {
  method: 'gcp_metadata',
  requestHeader: { 'metadata-flavor': 'Google' },
  answerHeader: { name: 'Metadata-Flavor', value: 'Google', service: 'GCE metadata server', platform: 'Google Cloud' },
  unreachableHint:
    "the metadata server answers only on Google Cloud (Compute Engine, GKE, Cloud Run, Cloud Functions); elsewhere use auth_method 'service_account_key'",
};

export default defineAuthMethod({
  name: 'gcp_metadata',
  // No secret in configuration.json: the platform issues and rotates what it signs with.
  rotationDays: null,
  summary:
    "the Google Cloud workload's own service account: access tokens from the GCE metadata server, no key in the configuration",
  keys: z.object({
    gcp_service_account: keys.textWithDefault('default'),
    scope: keys.optionalText(),
    metadata_endpoint: metadataEndpointKey(),
  }),
  create(k, context) {
    const account = k.gcp_service_account.trim();
    // OAuth writes scopes space-separated, the metadata server wants them comma-separated: take either.
    const scopes = (k.scope ?? '').split(/[\s,]+/).filter(Boolean);
    const scopeOrAccount = scopes.length > 0 ? 'scope' : 'gcp_service_account';
    const request: MetadataTokenRequest = {
      path: `computeMetadata/v1/instance/service-accounts/${encodeURIComponent(account)}/token`,
      query: scopes.length > 0 ? { scopes: scopes.join(',') } : {},
      description: `GCP metadata identity '${account}'`,
      errorKeys: {
        invalid_client: 'gcp_service_account',
        invalid_grant: 'gcp_service_account',
        unauthorized_client: 'gcp_service_account',
        invalid_scope: 'scope',
        other: 'gcp_service_account',
      },
      refusalStatuses: { 400: scopeOrAccount, 403: 'gcp_service_account', 404: 'gcp_service_account' },
      // A token the API refuses is one without the right scope, or of an account without the role.
      rejectedKey: scopeOrAccount,
    };
    return metadataTokenCredential(GCE_METADATA_SERVER, request, k.metadata_endpoint, context);
  },
});
