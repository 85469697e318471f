import { ConfigurationError } from '../errors/index.js';

/**
 * Google's credential configuration file for workload identity federation (`"type":
 * "external_account"`, as `gcloud iam workload-identity-pools create-cred-config` writes it): which
 * pool provider to present the workload's token to (`audience`), the security token service
 * (`token_url`), where the token is (`credential_source`), and optionally the service account to
 * impersonate. It holds no secret: the token it points to is the credential.
 *
 * Only a file source is read (`credential_source.file`, text or JSON). URL, AWS and executable
 * sources are refused with the reason: each fetches or runs something configuration.json does not
 * name.
 */

export interface ExternalAccountConfiguration {
  /** `//iam.googleapis.com/projects/N/locations/global/workloadIdentityPools/POOL/providers/PROVIDER` */
  audience: string;
  /** `urn:ietf:params:oauth:token-type:jwt` (OIDC) or `…:id_token`, `…:saml2`. */
  subjectTokenType: string;
  tokenUrl: URL;
  /** The file the platform writes the workload's token to. */
  file: string;
  /** The token is the file's text, or one field of the JSON in it. */
  jsonField: string | undefined;
  impersonation: { url: URL; serviceAccount: string; lifetimeSeconds: number } | undefined;
}

const KEY = 'gcp_credential_configuration';
const DEFAULT_TOKEN_URL = 'https://sts.googleapis.com/v1/token';
/** What generateAccessToken grants by default and at most without an org policy exception. */
const DEFAULT_LIFETIME_SECONDS = 3600;
const MAX_LIFETIME_SECONDS = 43_200;
const IMPERSONATION_PATH = /\/serviceAccounts\/([^/:]+):generateAccessToken$/;

/** The configuration as one configuration string: its JSON text, or that text in base64. */
export function parseCredentialConfiguration(text: string): ExternalAccountConfiguration {
  const trimmed = text.trim();
  const json = trimmed.startsWith('{') ? trimmed : Buffer.from(trimmed, 'base64').toString('utf8').trim();
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw invalid("it is not JSON (paste the credential configuration file's content, as one string)");
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalid('it is not a JSON object');
  const o = value as Record<string, unknown>;
  if (o.type === 'service_account') throw invalid("it is a service account key: use auth_method 'service_account_key'");
  if (o.type !== 'external_account') throw invalid(`its "type" is ${JSON.stringify(o.type ?? null)}, not "external_account"`);

  const stringField = (from: Record<string, unknown>, name: string, where = name): string | undefined => {
    const v = from[name];
    if (v === undefined) return undefined;
    if (typeof v !== 'string' || v.trim() === '') throw invalid(`its "${where}" is not a non-empty string`);
    return v.trim();
  };
  const url = (raw: string, where: string): URL => {
    const parsed = URL.parse(raw);
    if (!parsed) throw invalid(`its "${where}" is not an absolute URL`);
    return parsed;
  };

  const audience = stringField(o, 'audience');
  if (!audience) throw invalid('its "audience" (the workload identity pool provider) is missing');
  const subjectTokenType = stringField(o, 'subject_token_type');
  if (!subjectTokenType) throw invalid('its "subject_token_type" is missing');
  if (subjectTokenType === 'urn:ietf:params:aws:token-type:aws4_request') throw unsupported('an AWS credential source (aws4_request)');

  const source = o.credential_source;
  if (source === null || typeof source !== 'object' || Array.isArray(source)) throw invalid('its "credential_source" is missing');
  const s = source as Record<string, unknown>;
  if (s.file === undefined) {
    if (s.environment_id !== undefined) throw unsupported('an AWS credential source (credential_source.environment_id)');
    if (s.url !== undefined) throw unsupported('a URL credential source (credential_source.url)');
    if (s.executable !== undefined) throw unsupported('an executable credential source (credential_source.executable)');
    throw invalid('its "credential_source" has no "file"');
  }
  const file = stringField(s, 'file', 'credential_source.file')!;
  let jsonField: string | undefined;
  const format = s.format;
  if (format !== undefined) {
    const f = (format ?? {}) as Record<string, unknown>;
    if (f.type === 'json') {
      jsonField = stringField(f, 'subject_token_field_name', 'credential_source.format.subject_token_field_name');
      if (!jsonField) throw invalid('its "credential_source.format" is json without "subject_token_field_name"');
    } else if (f.type !== 'text' && f.type !== undefined) {
      throw invalid('its "credential_source.format.type" is neither "text" nor "json"');
    }
  }

  let impersonation: ExternalAccountConfiguration['impersonation'];
  const impersonationUrl = stringField(o, 'service_account_impersonation_url');
  if (impersonationUrl) {
    const parsed = url(impersonationUrl, 'service_account_impersonation_url');
    const serviceAccount = IMPERSONATION_PATH.exec(parsed.pathname)?.[1];
    if (!serviceAccount) throw invalid('its "service_account_impersonation_url" does not end in serviceAccounts/EMAIL:generateAccessToken');
    const options = (o.service_account_impersonation ?? {}) as Record<string, unknown>;
    const lifetime = options.token_lifetime_seconds ?? DEFAULT_LIFETIME_SECONDS;
    if (typeof lifetime !== 'number' || !Number.isInteger(lifetime) || lifetime < 600 || lifetime > MAX_LIFETIME_SECONDS)
      throw invalid(`its "service_account_impersonation.token_lifetime_seconds" must be a whole number from 600 to ${MAX_LIFETIME_SECONDS}`);
    impersonation = { url: parsed, serviceAccount: decodeURIComponent(serviceAccount), lifetimeSeconds: lifetime };
  }

  return {
    audience,
    subjectTokenType,
    tokenUrl: url(stringField(o, 'token_url') ?? DEFAULT_TOKEN_URL, 'token_url'),
    file,
    jsonField,
    impersonation,
  };
}

function invalid(what: string): ConfigurationError {
  return new ConfigurationError(`invalid configuration for auth_method 'gcp_workload_identity': key '${KEY}' is not a usable credential configuration: ${what}`, {
    code: 'gcp_credential_configuration_invalid',
    key: KEY,
    hint: `put the content of the file that \`gcloud iam workload-identity-pools create-cred-config\` writes in '${KEY}'`,
  });
}

function unsupported(what: string): ConfigurationError {
  return new ConfigurationError(`auth_method 'gcp_workload_identity' reads the workload's token from a file only; '${KEY}' names ${what}`, {
    code: 'gcp_credential_source_unsupported',
    key: KEY,
    hint: 'create the configuration with --credential-source-file pointing at the file the platform writes the token to',
  });
}
