import { z } from 'zod';
import { keys } from '../../config/index.js';
import { SourceUnreachableError } from '../../errors/index.js';
import { describeUrl, HeaderList } from '../../network/index.js';
import { defineAuthMethod } from '../auth-method.js';
import { LINK_LOCAL_METADATA_BASE, metadataEndpointKey, metadataUrl } from './metadata-endpoint.js';
import { tokenCredential } from '../tokens/index.js';
import { tokenEndpointFor } from '../token-endpoint/index.js';

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
  async create(k, context) {
    const account = k.gcp_service_account.trim();
    const url = metadataUrl(
      k.metadata_endpoint,
      LINK_LOCAL_METADATA_BASE,
      `computeMetadata/v1/instance/service-accounts/${encodeURIComponent(account)}/token`,
    );
    // OAuth writes scopes space-separated, the metadata server wants them comma-separated: take either.
    const scopes = (k.scope ?? '').split(/[\s,]+/).filter(Boolean);
    const description = `GCP metadata identity '${account}'`;
    const scopeOrAccount = scopes.length > 0 ? 'scope' : 'gcp_service_account';
    const endpoint = await tokenEndpointFor(context, {
      url,
      urlKey: 'metadata_endpoint',
      credential: description,
      method: 'GET',
      errorKeys: {
        invalid_client: 'gcp_service_account',
        invalid_grant: 'gcp_service_account',
        unauthorized_client: 'gcp_service_account',
        invalid_scope: 'scope',
        other: 'gcp_service_account',
      },
      refusalStatuses: { 400: scopeOrAccount, 403: 'gcp_service_account', 404: 'gcp_service_account' },
      checkAnswer: (response) =>
        response.headers.get('metadata-flavor') === 'Google'
          ? undefined
          : new SourceUnreachableError(
              `${description}: ${describeUrl(url)} answered HTTP ${response.status} without 'Metadata-Flavor: Google'; it is not the GCE metadata server`,
              {
                code: 'not_a_metadata_server',
                key: 'metadata_endpoint',
                hint: "leave 'metadata_endpoint' out on Google Cloud, or point it at the metadata server",
              },
            ),
      unreachableHint:
        "the metadata server answers only on Google Cloud (Compute Engine, GKE, Cloud Run, Cloud Functions); elsewhere use auth_method 'service_account_key'",
    });
    return tokenCredential({
      method: 'gcp_metadata',
      description,
      // A token the API refuses is one without the right scope, or of an account without the role.
      rejectedKey: scopeOrAccount,
      endpoint,
      context,
      obtain: () =>
        endpoint.get(
          new URLSearchParams(scopes.length > 0 ? { scopes: scopes.join(',') } : {}),
          new HeaderList({ 'metadata-flavor': 'Google' }),
        ),
    });
  },
});
