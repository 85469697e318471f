import { describeUrl } from '../../network/index.js';
import { staysLocalOrEncrypted } from '../metadata/index.js';
import { invalid, stringField, unsupported, urlField, type JsonObject } from './gcp-configuration-fields.js';

/**
 * Where a credential configuration says the workload's token is (`credential_source`): a file the
 * platform writes it to, a URL that hands it out (with its `headers`), each as text or JSON (`format`),
 * or AWS (`environment_id` `aws1`). Every URL must be https://, or http:// on a link-local or loopback
 * address, as every metadata endpoint here. Executable sources (a command to run) are refused.
 */

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

/** `credential_source`, checked against `subject_token_type`: where the token is, and its JSON field if any. */
export function readCredentialSource(
  source: unknown,
  subjectTokenType: string,
): { source: SubjectTokenSource; jsonField: string | undefined } {
  if (source === null || typeof source !== 'object' || Array.isArray(source))
    throw invalid('its "credential_source" is missing');
  const s = source as JsonObject;
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
  return { source: aws ? awsSource(s) : fileOrUrlSource(s), jsonField: jsonFieldOf(s.format) };
}

function fileOrUrlSource(s: JsonObject): SubjectTokenSource {
  if (s.file !== undefined) return { kind: 'file', file: stringField(s, 'file', 'credential_source.file')! };
  if (s.url === undefined) throw invalid('its "credential_source" has neither "file" nor "url"');
  const at = urlField(stringField(s, 'url', 'credential_source.url')!, 'credential_source.url');
  if (!staysLocalOrEncrypted(at))
    throw invalid(
      `its "credential_source.url" (${describeUrl(at)}) must be https://, or http:// on a link-local or loopback host (the token it hands out must not cross a network in clear)`,
    );
  return { kind: 'url', url: at, headers: headersOf(s.headers) };
}

/** `credential_source.format`: the token is the whole text, or one field of the JSON. */
function jsonFieldOf(format: unknown): string | undefined {
  if (format === undefined) return undefined;
  const f = (format ?? {}) as JsonObject;
  if (f.type === 'json') {
    const jsonField = stringField(f, 'subject_token_field_name', 'credential_source.format.subject_token_field_name');
    if (!jsonField) throw invalid('its "credential_source.format" is json without "subject_token_field_name"');
    return jsonField;
  }
  if (f.type !== 'text' && f.type !== undefined)
    throw invalid('its "credential_source.format.type" is neither "text" nor "json"');
  return undefined;
}

/**
 * An AWS source as `gcloud iam workload-identity-pools create-cred-config --aws` writes it. Every URL
 * of IMDS must share one root (the instance's 169.254.169.254 or [fd00:ec2::254]); an IMDSv2 session
 * is opened there whether or not `imdsv2_session_token_url` says so, since IMDSv1 is never used.
 * Credentials in environment variables are not read (google-auth-library reads AWS_ACCESS_KEY_ID
 * first): a run's credentials come from configuration.json and the machine's own identity only.
 */
function awsSource(s: JsonObject): AwsSubjectTokenSource {
  checkAwsEnvironment(stringField(s, 'environment_id', 'credential_source.environment_id')!);
  const verificationUrl = awsVerificationUrl(s);
  const metadataBase = awsMetadataBase(s);
  const underRoot = (name: string, paths: string[]) => {
    const raw = stringField(s, name, `credential_source.${name}`);
    if (raw === undefined) return;
    const given = urlField(raw, `credential_source.${name}`);
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

function checkAwsEnvironment(environment: string): void {
  const version = /^aws(\d+)$/.exec(environment)?.[1];
  if (version === undefined)
    throw invalid(
      `its "credential_source.environment_id" (${JSON.stringify(environment)}) is not an AWS environment ("aws1")`,
    );
  if (version !== '1')
    throw invalid(
      `its "credential_source.environment_id" is AWS version ${version}; version 1 ("aws1") is the one there is`,
    );
}

/** The GetCallerIdentity URL, `{region}` left in it: https:// once a region is put in. */
function awsVerificationUrl(s: JsonObject): string {
  const verificationUrl = stringField(
    s,
    'regional_cred_verification_url',
    'credential_source.regional_cred_verification_url',
  );
  if (!verificationUrl) throw invalid('its AWS "credential_source" has no "regional_cred_verification_url"');
  const sample = urlField(
    verificationUrl.replaceAll('{region}', 'us-east-1'),
    'credential_source.regional_cred_verification_url',
  );
  if (sample.protocol !== 'https:')
    throw invalid('its "credential_source.regional_cred_verification_url" is not https://');
  return verificationUrl;
}

/** The root of the instance metadata service, from `credential_source.url` (its role credentials' URL). */
function awsMetadataBase(s: JsonObject): URL {
  const credentialsUrl = stringField(s, 'url', 'credential_source.url');
  if (!credentialsUrl)
    throw invalid(
      'its AWS "credential_source" has no "url": the role credentials are read from the instance metadata service only (environment variables are not read)',
    );
  const at = urlField(credentialsUrl, 'credential_source.url');
  if (!staysLocalOrEncrypted(at))
    throw invalid(
      `its "credential_source.url" (${describeUrl(at)}) must be https://, or http:// on a link-local or loopback host (the credentials it hands out must not cross a network in clear)`,
    );
  const root = AWS_CREDENTIALS_PATH.exec(at.pathname)?.[1];
  if (root === undefined || at.search)
    throw invalid(
      'its "credential_source.url" is not the instance metadata service\'s latest/meta-data/iam/security-credentials',
    );
  return new URL(root, at);
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
