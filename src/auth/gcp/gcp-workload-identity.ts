import { z } from 'zod';
import { keys } from '../../config/index.js';
import { defineAuthMethod, type AuthContext } from '../auth-method.js';
import {
  parseCredentialConfiguration,
  type ExternalAccountConfiguration,
  type SubjectTokenReader,
} from './gcp-credential-configuration.js';
import { tokenCredential } from '../tokens/index.js';
import {
  checkTokenEndpointUrl,
  readIamCredentialsToken,
  tokenEndpointFor,
  type TokenEndpoint,
  type TokenResponse,
} from '../token-endpoint/index.js';
import { subjectTokenReader } from './gcp-subject-token.js';
import { HeaderList } from '../../network/index.js';

/**
 * Google Cloud workload identity federation: a workload outside Google Cloud (on AWS, Azure, any
 * Kubernetes cluster, a CI runner) presents the token its platform issued it to Google's security
 * token service (RFC 8693 token exchange) and gets a federated access token; with a service account
 * to impersonate, that token then asks the IAM Credentials API for the service account's own
 * (`generateAccessToken`). No key exists anywhere: what google-auth-library does with an
 * `external_account` credential configuration, whose content is `gcp_credential_configuration`.
 *
 * The workload's token is read again for every exchange, from its file (the platform rewrites it)
 * or its URL (gcp-subject-token.ts), or made again by an EC2 instance's role (a signed AWS request,
 * gcp-aws-subject-token.ts), and the token, the federated token and the final one are
 * registered as secrets as they appear. One exchange (and one
 * impersonation) per token lifetime, through the shared token cache.
 */

const KEY = 'gcp_credential_configuration';
const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
/** What google-auth-library asks for when no scope is given. */
const DEFAULT_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';

export default defineAuthMethod({
  name: 'gcp_workload_identity',
  // No secret in configuration.json: the platform issues and rotates the token it points to.
  rotationDays: null,
  summary:
    "Google Cloud workload identity federation: the workload's own token (from a file or a URL, or an EC2 instance's role) exchanged at Google's STS, optionally for a service account's token; no key",
  keys: z.object({
    gcp_credential_configuration: keys.text(),
    scope: keys.optionalText(),
  }),
  async create(k, context) {
    const config = parseCredentialConfiguration(k.gcp_credential_configuration);
    const scopes = (k.scope ?? DEFAULT_SCOPE).split(/[\s,]+/).filter(Boolean);
    checkEndpointUrls(config);
    const description = describe(config);
    const subjectToken = await subjectTokenReader(config, description, context);
    const sts = await exchangeEndpoint(config, description, context);
    const impersonate = config.impersonation
      ? await impersonationEndpoint(config.impersonation, description, context)
      : undefined;
    return tokenCredential({
      method: 'gcp_workload_identity',
      description,
      // A token the API refuses is usually one whose principal lacks a role there.
      rejectedKey: KEY,
      endpoint: impersonate ?? sts,
      alsoClose: impersonate ? [sts, subjectToken] : [subjectToken],
      context,
      obtain: async () => {
        const federated = await exchange(sts, config, subjectToken, impersonate ? [DEFAULT_SCOPE] : scopes);
        if (!impersonate) return federated;
        return impersonateServiceAccount(impersonate, federated, scopes, config.impersonation!.lifetimeSeconds);
      },
    });
  },
});

type Impersonation = NonNullable<ExternalAccountConfiguration['impersonation']>;

function checkEndpointUrls(config: ExternalAccountConfiguration): void {
  const scope = `auth_method 'gcp_workload_identity' (${KEY})`;
  checkTokenEndpointUrl(config.tokenUrl, KEY, scope, "send the workload's token", 'the security token service');
  if (config.impersonation)
    checkTokenEndpointUrl(config.impersonation.url, KEY, scope, 'send the federated token', 'the IAM credentials API');
}

function describe(config: ExternalAccountConfiguration): string {
  const pool = config.audience.replace(/^\/\/iam\.googleapis\.com\//, '');
  return config.impersonation
    ? `GCP workload identity (${pool}) as service account '${config.impersonation.serviceAccount}'`
    : `GCP workload identity (${pool})`;
}

/** Google's security token service, where the workload's token is exchanged. */
function exchangeEndpoint(
  config: ExternalAccountConfiguration,
  description: string,
  context: AuthContext,
): Promise<TokenEndpoint> {
  return tokenEndpointFor(context, {
    url: config.tokenUrl,
    urlKey: KEY,
    credential: description,
    // Every refusal of the exchange is about the configuration: the pool provider (audience), the
    // token's issuer, audience or age, or the provider's attribute condition; only scope is apart.
    errorKeys: {
      invalid_client: KEY,
      invalid_grant: KEY,
      unauthorized_client: KEY,
      invalid_scope: 'scope',
      invalid_target: KEY,
      other: KEY,
    },
  });
}

/** The IAM Credentials API's generateAccessToken of the service account to impersonate. */
function impersonationEndpoint(
  impersonation: Impersonation,
  description: string,
  context: AuthContext,
): Promise<TokenEndpoint> {
  return tokenEndpointFor(context, {
    url: impersonation.url,
    urlKey: KEY,
    credential: description,
    // generateAccessToken answers `accessToken` / `expireTime`, not OAuth's fields.
    readToken: readIamCredentialsToken,
    errorKeys: {
      invalid_client: KEY,
      invalid_grant: KEY,
      unauthorized_client: KEY,
      invalid_scope: 'scope',
      other: KEY,
    },
    refusalStatuses: {
      400: 'scope',
      401: KEY,
      403: {
        key: KEY,
        hint: `grant the pool's principal roles/iam.workloadIdentityUser on service account '${impersonation.serviceAccount}' (or check the account in service_account_impersonation_url)`,
      },
      404: { key: KEY, hint: `check the service account in service_account_impersonation_url of '${KEY}'` },
    },
  });
}

/**
 * The workload's token exchanged for a federated one (RFC 8693). When impersonating, the federated
 * token only buys the service account's, and the IAM Credentials API wants cloud-platform (or iam) on
 * it: the caller's scopes go to generateAccessToken instead (google-auth-library does the same).
 */
function exchange(
  sts: TokenEndpoint,
  config: ExternalAccountConfiguration,
  subjectToken: SubjectTokenReader,
  scopes: string[],
): Promise<TokenResponse> {
  return sts.request(TOKEN_EXCHANGE, async () => ({
    body: new URLSearchParams({
      audience: config.audience,
      scope: scopes.join(' '),
      requested_token_type: ACCESS_TOKEN_TYPE,
      subject_token: await subjectToken.read(),
      subject_token_type: config.subjectTokenType,
    }),
    headers: new HeaderList(),
  }));
}

async function impersonateServiceAccount(
  impersonate: TokenEndpoint,
  federated: TokenResponse,
  scopes: string[],
  lifetimeSeconds: number,
): Promise<TokenResponse> {
  const token = await impersonate.postJson(
    { scope: scopes, lifetime: `${lifetimeSeconds}s` },
    new HeaderList({ authorization: `Bearer ${federated.accessToken}` }),
  );
  // expireTime is a time of Google's clock: a local clock running slow must not keep the token past the lifetime asked for.
  return { ...token, expiresInSeconds: Math.min(token.expiresInSeconds ?? lifetimeSeconds, lifetimeSeconds) };
}
