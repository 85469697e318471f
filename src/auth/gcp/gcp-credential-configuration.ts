import { invalid, stringField, urlField, type JsonObject } from './gcp-configuration-fields.js';
import { readCredentialSource, type SubjectTokenSource } from './gcp-credential-source.js';

/**
 * Google's credential configuration file for workload identity federation (`"type":
 * "external_account"`, as `gcloud iam workload-identity-pools create-cred-config` writes it): which
 * pool provider to present the workload's token to (`audience`), the security token service
 * (`token_url`), where the token is (`credential_source`), and optionally the service account to
 * impersonate. It holds no secret: the token it points to is the credential.
 *
 * Three credential sources are read (gcp-credential-source.ts): a file the platform writes the token
 * to (`credential_source.file`: Kubernetes, most CI runners), a URL that hands it out
 * (`credential_source.url` with its `headers`: Azure's instance metadata service, a sidecar), each as
 * text or JSON, and AWS (`environment_id` `aws1`: the EC2 instance's role signs a GetCallerIdentity
 * request, gcp-aws-subject-token.ts). Executable sources (a command to run) are refused with the reason.
 */

export interface ExternalAccountConfiguration {
  /** `//iam.googleapis.com/projects/N/locations/global/workloadIdentityPools/POOL/providers/PROVIDER` */
  audience: string;
  /** `urn:ietf:params:oauth:token-type:jwt` (OIDC) or `…:id_token`, `…:saml2`. */
  subjectTokenType: string;
  tokenUrl: URL;
  /** Where the workload's token is: a file the platform writes it to, or a URL that hands it out. */
  source: SubjectTokenSource;
  /** The token is the file's or the answer's text, or one field of the JSON in it. */
  jsonField: string | undefined;
  impersonation: { url: URL; serviceAccount: string; lifetimeSeconds: number } | undefined;
}

const DEFAULT_TOKEN_URL = 'https://sts.googleapis.com/v1/token';
/** What generateAccessToken grants by default and at most without an org policy exception. */
const DEFAULT_LIFETIME_SECONDS = 3600;
const MAX_LIFETIME_SECONDS = 43_200;
const IMPERSONATION_PATH = /\/serviceAccounts\/([^/:]+):generateAccessToken$/;

/** The configuration as one configuration string: its JSON text, or that text in base64. */
export function parseCredentialConfiguration(text: string): ExternalAccountConfiguration {
  const o = externalAccountObject(text);
  const audience = stringField(o, 'audience');
  if (!audience) throw invalid('its "audience" (the workload identity pool provider) is missing');
  const subjectTokenType = stringField(o, 'subject_token_type');
  if (!subjectTokenType) throw invalid('its "subject_token_type" is missing');
  const { source, jsonField } = readCredentialSource(o.credential_source, subjectTokenType);
  const impersonation = impersonationOf(o);
  return {
    audience,
    subjectTokenType,
    tokenUrl: urlField(stringField(o, 'token_url') ?? DEFAULT_TOKEN_URL, 'token_url'),
    source,
    jsonField,
    impersonation,
  };
}

/** The file's JSON object, which must be an `external_account`'s. */
function externalAccountObject(text: string): JsonObject {
  const trimmed = text.trim();
  const json = trimmed.startsWith('{') ? trimmed : Buffer.from(trimmed, 'base64').toString('utf8').trim();
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw invalid("it is not JSON (paste the credential configuration file's content, as one string)");
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalid('it is not a JSON object');
  const o = value as JsonObject;
  if (o.type === 'service_account') throw invalid("it is a service account key: use auth_method 'service_account_key'");
  if (o.type !== 'external_account')
    throw invalid(`its "type" is ${JSON.stringify(o.type ?? null)}, not "external_account"`);
  return o;
}

/** The service account to impersonate, from its generateAccessToken URL, and the lifetime to ask for. */
function impersonationOf(o: JsonObject): ExternalAccountConfiguration['impersonation'] {
  const impersonationUrl = stringField(o, 'service_account_impersonation_url');
  if (!impersonationUrl) return undefined;
  const parsed = urlField(impersonationUrl, 'service_account_impersonation_url');
  const serviceAccount = IMPERSONATION_PATH.exec(parsed.pathname)?.[1];
  if (!serviceAccount)
    throw invalid('its "service_account_impersonation_url" does not end in serviceAccounts/EMAIL:generateAccessToken');
  const options = (o.service_account_impersonation ?? {}) as JsonObject;
  const lifetime = options.token_lifetime_seconds ?? DEFAULT_LIFETIME_SECONDS;
  if (typeof lifetime !== 'number' || !Number.isInteger(lifetime) || lifetime < 600 || lifetime > MAX_LIFETIME_SECONDS)
    throw invalid(
      `its "service_account_impersonation.token_lifetime_seconds" must be a whole number from 600 to ${MAX_LIFETIME_SECONDS}`,
    );
  return { url: parsed, serviceAccount: decodeURIComponent(serviceAccount), lifetimeSeconds: lifetime };
}

/** How the workload token a credential source points to is read (gcp-subject-token.ts, gcp-aws-subject-token.ts). */
export interface SubjectTokenReader {
  /** The token for one exchange. */
  read(): Promise<string>;
  /** Frees what reading used (its HTTP client). */
  close(): Promise<void>;
}
