import { ConfigurationError } from '../errors/index.js';
import { describeUrl } from '../network/index.js';
import { staysLocalOrEncrypted } from './metadata-endpoint.js';

/**
 * Google's credential configuration file for workload identity federation (`"type":
 * "external_account"`, as `gcloud iam workload-identity-pools create-cred-config` writes it): which
 * pool provider to present the workload's token to (`audience`), the security token service
 * (`token_url`), where the token is (`credential_source`), and optionally the service account to
 * impersonate. It holds no secret: the token it points to is the credential.
 *
 * Two credential sources are read: a file the platform writes the token to (`credential_source.file`:
 * Kubernetes, most CI runners) and a URL that hands it out (`credential_source.url` with its
 * `headers`: Azure's instance metadata service, a sidecar), each as text or JSON. The URL must be
 * https://, or http:// on a link-local or loopback address, as every metadata endpoint here.
 * AWS sources (a GetCallerIdentity signed with credentials from the environment) and executable
 * sources (a command to run) are refused with the reason.
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

export type SubjectTokenSource = { kind: 'file'; file: string } | { kind: 'url'; url: URL; headers: Record<string, string> };

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
  if (s.environment_id !== undefined) throw unsupported('an AWS credential source (credential_source.environment_id)');
  if (s.executable !== undefined) throw unsupported('an executable credential source (credential_source.executable)');
  if (s.file !== undefined && s.url !== undefined) throw invalid('its "credential_source" has both "file" and "url"');
  let tokenSource: SubjectTokenSource;
  if (s.file !== undefined) {
    tokenSource = { kind: 'file', file: stringField(s, 'file', 'credential_source.file')! };
  } else if (s.url !== undefined) {
    const at = url(stringField(s, 'url', 'credential_source.url')!, 'credential_source.url');
    if (!staysLocalOrEncrypted(at))
      throw invalid(`its "credential_source.url" (${describeUrl(at)}) must be https://, or http:// on a link-local or loopback host (the token it hands out must not cross a network in clear)`);
    tokenSource = { kind: 'url', url: at, headers: headersOf(s.headers) };
  } else {
    throw invalid('its "credential_source" has neither "file" nor "url"');
  }
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
    source: tokenSource,
    jsonField,
    impersonation,
  };
}

/** `credential_source.headers`: names to string values, sent with the GET of the URL (Azure's `Metadata: True`). */
function headersOf(value: unknown): Record<string, string> {
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalid('its "credential_source.headers" is not an object');
  const headers: Record<string, string> = {};
  for (const [name, v] of Object.entries(value as Record<string, unknown>)) {
    if (typeof v !== 'string' || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name) || /[\r\n\0]/.test(v))
      throw invalid(`its "credential_source.headers" has a header that is not a name with a one-line string value`);
    headers[name] = v;
  }
  return headers;
}

function invalid(what: string): ConfigurationError {
  return new ConfigurationError(`invalid configuration for auth_method 'gcp_workload_identity': key '${KEY}' is not a usable credential configuration: ${what}`, {
    code: 'gcp_credential_configuration_invalid',
    key: KEY,
    hint: `put the content of the file that \`gcloud iam workload-identity-pools create-cred-config\` writes in '${KEY}'`,
  });
}

function unsupported(what: string): ConfigurationError {
  return new ConfigurationError(`auth_method 'gcp_workload_identity' reads the workload's token from a file or a URL only; '${KEY}' names ${what}`, {
    code: 'gcp_credential_source_unsupported',
    key: KEY,
    hint: 'create the configuration with --credential-source-file (the file the platform writes the token to) or --credential-source-url',
  });
}
