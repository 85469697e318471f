import { ConfigurationError } from '../../errors/index.js';
import { describeUrl } from '../../network/index.js';
import { staysLocalOrEncrypted } from '../metadata/index.js';

/**
 * Google's credential configuration file for workload identity federation (`"type":
 * "external_account"`, as `gcloud iam workload-identity-pools create-cred-config` writes it): which
 * pool provider to present the workload's token to (`audience`), the security token service
 * (`token_url`), where the token is (`credential_source`), and optionally the service account to
 * impersonate. It holds no secret: the token it points to is the credential.
 *
 * Three credential sources are read: a file the platform writes the token to (`credential_source.file`:
 * Kubernetes, most CI runners), a URL that hands it out (`credential_source.url` with its `headers`:
 * Azure's instance metadata service, a sidecar), each as text or JSON, and AWS (`environment_id`
 * `aws1`: the EC2 instance's role signs a GetCallerIdentity request, gcp-aws-subject-token.ts). Every
 * URL must be https://, or http:// on a link-local or loopback address, as every metadata endpoint
 * here. Executable sources (a command to run) are refused with the reason.
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

export type SubjectTokenSource =
  { kind: 'file'; file: string } | { kind: 'url'; url: URL; headers: Record<string, string> } | AwsSubjectTokenSource;

/**
 * `environment_id: aws1`: the instance metadata service the EC2 instance's role credentials and
 * region come from (the root of `credential_source.url`, IMDSv2 always), and the GetCallerIdentity
 * URL to sign, `{region}` standing for the instance's region.
 */
export interface AwsSubjectTokenSource {
  kind: 'aws';
  metadataBase: URL;
  verificationUrl: string;
}

/** The subject token type of an AWS source: a signed request, not a token. */
export const AWS_SUBJECT_TOKEN_TYPE = 'urn:ietf:params:aws:token-type:aws4_request';
/** Where IMDS serves the role credentials, below its root. */
const AWS_CREDENTIALS_PATH = /^(.*\/)latest\/meta-data\/iam\/security-credentials\/?$/;

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
  if (o.type !== 'external_account')
    throw invalid(`its "type" is ${JSON.stringify(o.type ?? null)}, not "external_account"`);

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

  const source = o.credential_source;
  if (source === null || typeof source !== 'object' || Array.isArray(source))
    throw invalid('its "credential_source" is missing');
  const s = source as Record<string, unknown>;
  if (s.executable !== undefined) throw unsupported('an executable credential source (credential_source.executable)');
  const aws = s.environment_id !== undefined;
  if (aws !== (subjectTokenType === AWS_SUBJECT_TOKEN_TYPE))
    throw invalid(
      aws
        ? `its "subject_token_type" must be "${AWS_SUBJECT_TOKEN_TYPE}" with an AWS credential source`
        : `its "subject_token_type" "${AWS_SUBJECT_TOKEN_TYPE}" needs an AWS credential source ("environment_id")`,
    );
  if (s.file !== undefined && s.url !== undefined && !aws)
    throw invalid('its "credential_source" has both "file" and "url"');
  let tokenSource: SubjectTokenSource;
  if (aws) {
    tokenSource = awsSource(s, stringField, url);
  } else if (s.file !== undefined) {
    tokenSource = { kind: 'file', file: stringField(s, 'file', 'credential_source.file')! };
  } else if (s.url !== undefined) {
    const at = url(stringField(s, 'url', 'credential_source.url')!, 'credential_source.url');
    if (!staysLocalOrEncrypted(at))
      throw invalid(
        `its "credential_source.url" (${describeUrl(at)}) must be https://, or http:// on a link-local or loopback host (the token it hands out must not cross a network in clear)`,
      );
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
    if (!serviceAccount)
      throw invalid(
        'its "service_account_impersonation_url" does not end in serviceAccounts/EMAIL:generateAccessToken',
      );
    const options = (o.service_account_impersonation ?? {}) as Record<string, unknown>;
    const lifetime = options.token_lifetime_seconds ?? DEFAULT_LIFETIME_SECONDS;
    if (
      typeof lifetime !== 'number' ||
      !Number.isInteger(lifetime) ||
      lifetime < 600 ||
      lifetime > MAX_LIFETIME_SECONDS
    )
      throw invalid(
        `its "service_account_impersonation.token_lifetime_seconds" must be a whole number from 600 to ${MAX_LIFETIME_SECONDS}`,
      );
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

type StringField = (from: Record<string, unknown>, name: string, where?: string) => string | undefined;

/**
 * An AWS source as `gcloud iam workload-identity-pools create-cred-config --aws` writes it. Every URL
 * of IMDS must share one root (the instance's 169.254.169.254 or [fd00:ec2::254]); an IMDSv2 session
 * is opened there whether or not `imdsv2_session_token_url` says so, since IMDSv1 is never used.
 * Credentials in environment variables are not read (google-auth-library reads AWS_ACCESS_KEY_ID
 * first): a run's credentials come from configuration.json and the machine's own identity only.
 */
function awsSource(
  s: Record<string, unknown>,
  stringField: StringField,
  url: (raw: string, where: string) => URL,
): AwsSubjectTokenSource {
  const environment = stringField(s, 'environment_id', 'credential_source.environment_id')!;
  const version = /^aws(\d+)$/.exec(environment)?.[1];
  if (version === undefined)
    throw invalid(
      `its "credential_source.environment_id" (${JSON.stringify(environment)}) is not an AWS environment ("aws1")`,
    );
  if (version !== '1')
    throw invalid(
      `its "credential_source.environment_id" is AWS version ${version}; version 1 ("aws1") is the one there is`,
    );

  const verificationUrl = stringField(
    s,
    'regional_cred_verification_url',
    'credential_source.regional_cred_verification_url',
  );
  if (!verificationUrl) throw invalid('its AWS "credential_source" has no "regional_cred_verification_url"');
  const sample = url(
    verificationUrl.replaceAll('{region}', 'us-east-1'),
    'credential_source.regional_cred_verification_url',
  );
  if (sample.protocol !== 'https:')
    throw invalid('its "credential_source.regional_cred_verification_url" is not https://');

  const credentialsUrl = stringField(s, 'url', 'credential_source.url');
  if (!credentialsUrl)
    throw invalid(
      'its AWS "credential_source" has no "url": the role credentials are read from the instance metadata service only (environment variables are not read)',
    );
  const at = url(credentialsUrl, 'credential_source.url');
  if (!staysLocalOrEncrypted(at))
    throw invalid(
      `its "credential_source.url" (${describeUrl(at)}) must be https://, or http:// on a link-local or loopback host (the credentials it hands out must not cross a network in clear)`,
    );
  const root = AWS_CREDENTIALS_PATH.exec(at.pathname)?.[1];
  if (root === undefined || at.search)
    throw invalid(
      'its "credential_source.url" is not the instance metadata service\'s latest/meta-data/iam/security-credentials',
    );
  const metadataBase = new URL(root, at);

  const underRoot = (name: string, paths: string[]) => {
    const raw = stringField(s, name, `credential_source.${name}`);
    if (raw === undefined) return;
    const given = url(raw, `credential_source.${name}`);
    if (!paths.some((path) => given.href === new URL(path, metadataBase).href))
      throw invalid(
        `its "credential_source.${name}" is not ${paths[0]} of the instance metadata service at ${describeUrl(metadataBase)} ("credential_source.url")`,
      );
  };
  underRoot('imdsv2_session_token_url', ['latest/api/token']);
  // The region is read at placement/region whichever of the two the file names (gcp-aws-subject-token.ts).
  underRoot('region_url', ['latest/meta-data/placement/availability-zone', 'latest/meta-data/placement/region']);
  return { kind: 'aws', metadataBase, verificationUrl };
}

/** `credential_source.headers`: names to string values, sent with the GET of the URL (Azure's `Metadata: True`). */
function headersOf(value: unknown): Record<string, string> {
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw invalid('its "credential_source.headers" is not an object');
  const headers: Record<string, string> = {};
  for (const [name, v] of Object.entries(value as Record<string, unknown>)) {
    if (typeof v !== 'string' || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name) || /[\r\n\0]/.test(v))
      throw invalid(`its "credential_source.headers" has a header that is not a name with a one-line string value`);
    headers[name] = v;
  }
  return headers;
}

function invalid(what: string): ConfigurationError {
  return new ConfigurationError(
    `invalid configuration for auth_method 'gcp_workload_identity': key '${KEY}' is not a usable credential configuration: ${what}`,
    {
      code: 'gcp_credential_configuration_invalid',
      key: KEY,
      hint: `put the content of the file that \`gcloud iam workload-identity-pools create-cred-config\` writes in '${KEY}'`,
    },
  );
}

function unsupported(what: string): ConfigurationError {
  return new ConfigurationError(
    `auth_method 'gcp_workload_identity' reads the workload's token from a file or a URL only; '${KEY}' names ${what}`,
    {
      code: 'gcp_credential_source_unsupported',
      key: KEY,
      hint: 'create the configuration with --credential-source-file (the file the platform writes the token to) or --credential-source-url',
    },
  );
}

/** How the workload token a credential source points to is read (gcp-subject-token.ts, gcp-aws-subject-token.ts). */
export interface SubjectTokenReader {
  /** The token for one exchange. */
  read(): Promise<string>;
  /** Frees what reading used (its HTTP client). */
  close(): Promise<void>;
}
