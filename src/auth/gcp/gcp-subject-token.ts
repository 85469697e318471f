import { ConfigurationError } from '../../errors/index.js';
import { describeUrl, HeaderList } from '../../network/index.js';
import type { AuthContext } from '../auth-method.js';
import type { ExternalAccountConfiguration, SubjectTokenReader } from './gcp-credential-configuration.js';
import type { SubjectTokenSource } from './gcp-credential-source.js';
import { parseObject, tokenEndpointFor } from '../token-endpoint/index.js';
import { tokenFileReader } from '../tokens/index.js';
import { awsSubjectTokenReader } from './gcp-aws-subject-token.js';

/**
 * The workload's own token that gcp_workload_identity presents to Google's STS (the "subject
 * token"), from where its credential configuration says: a file the platform rewrites (read again
 * at each exchange), or a URL that hands it out (asked again at each exchange, with the
 * configuration's headers; Azure's instance metadata service is the usual one). As text, or one
 * field of the JSON. Registered as a secret the moment it arrives. (An EC2 instance's is a signed
 * request instead: gcp-aws-subject-token.ts.)
 *
 * A URL is asked through a TokenEndpoint by GET, so it gets what every token request here gets:
 * TLS verified (plus `tls_ca_certificate`), no redirects, retries of 429/5xx within 80% of
 * `timeout_seconds`, and a refusal (Azure's `{"error": "invalid_request", "error_description":
 * "Identity not found"}`) said with the server's words, naming the configuration.
 */

const KEY = 'gcp_credential_configuration';
/** Header names whose values are credentials: registered as secrets, since the configuration itself is not one. */
const CREDENTIAL_HEADER = /authorization|token|secret|key|auth|cookie|identity/i;

export async function subjectTokenReader(
  config: ExternalAccountConfiguration,
  description: string,
  context: AuthContext,
): Promise<SubjectTokenReader> {
  const source = config.source;
  if (source.kind === 'aws') return awsSubjectTokenReader(source, config.audience, description, context);
  if (source.kind === 'file') return fileTokenReader(source.file, config.jsonField, description, context);
  return urlTokenReader(source, config.jsonField, description, context);
}

/** The file the platform rewrites, read again at each exchange. */
function fileTokenReader(
  file: string,
  field: string | undefined,
  description: string,
  context: AuthContext,
): SubjectTokenReader {
  const readFile = tokenFileReader({
    file,
    key: KEY,
    setting: `credential_source.file in '${KEY}'`,
    noun: 'subject token',
    name: 'subject_token',
    whereFrom: 'the workload identity token of the platform the connector runs on',
    description,
    secrets: context.secrets,
  });
  const close = async () => undefined;
  if (!field) return { read: readFile, close };
  return {
    read: async () => {
      const text = await readFile();
      const token = fieldOf(parseObject(text), field);
      if (!token)
        throw fieldMissing(
          description,
          `the token file ${file} is not JSON with a "${field}" string`,
          `what the platform writes to ${file}`,
        );
      return token;
    },
    close,
  };
}

type UrlSource = Extract<SubjectTokenSource, { kind: 'url' }>;

/** The URL that hands the token out, asked again at each exchange with the configuration's headers. */
async function urlTokenReader(
  source: UrlSource,
  field: string | undefined,
  description: string,
  context: AuthContext,
): Promise<SubjectTokenReader> {
  registerCredentialHeaders(source.headers, context);
  const endpoint = await tokenEndpointFor(context, {
    url: source.url,
    urlKey: KEY,
    method: 'GET',
    credential: description,
    // The platform refused to hand the workload a token: no identity attached, a resource it does not know.
    errorKeys: { invalid_client: KEY, invalid_grant: KEY, unauthorized_client: KEY, other: KEY },
    unreachableHint: `check credential_source.url in '${KEY}': the connector must run where that address hands out the workload's token (Azure's instance metadata service answers only on an Azure machine)`,
  });
  const read = () =>
    endpoint.get(
      new URLSearchParams(),
      new HeaderList({ ...(field ? {} : { accept: 'text/plain, */*' }), ...source.headers }),
      (json, response, text) => {
        const answer = { url: source.url, status: response.status, description };
        const token = field ? tokenInJson(json, field, answer) : tokenAsText(text, answer);
        context.secrets.register('subject_token', token);
        return token;
      },
    );
  return { read, close: () => endpoint.close() };
}

function registerCredentialHeaders(headers: Record<string, string>, context: AuthContext): void {
  for (const [name, value] of Object.entries(headers)) {
    if (!CREDENTIAL_HEADER.test(name)) continue;
    context.secrets.register(`credential_source header ${name}`, value);
    // `Bearer <token>`: the token alone too, as it may appear without its scheme.
    const credentials = /^[A-Za-z][\w.+-]*\s+(\S.*)$/.exec(value)?.[1];
    if (credentials) context.secrets.register(`credential_source header ${name}`, credentials);
  }
}

/** The URL's answer, for messages. */
interface UrlAnswer {
  url: URL;
  status: number;
  description: string;
}

function tokenInJson(json: Record<string, unknown> | undefined, field: string, answer: UrlAnswer): string {
  const token = fieldOf(json, field);
  if (!token)
    throw fieldMissing(
      answer.description,
      `GET ${describeUrl(answer.url)} answered HTTP ${answer.status} without a "${field}" string`,
      'what the URL answers',
    );
  return token;
}

function tokenAsText(text: string, answer: UrlAnswer): string {
  const token = text.trim();
  if (!token)
    throw new ConfigurationError(
      `${answer.description}: GET ${describeUrl(answer.url)} answered HTTP ${answer.status} with an empty body`,
      {
        code: 'subject_token_empty',
        key: KEY,
        hint: `check credential_source.url in '${KEY}': it must answer the workload's token`,
      },
    );
  return token;
}

function fieldMissing(description: string, what: string, against: string): ConfigurationError {
  return new ConfigurationError(`${description}: ${what}`, {
    code: 'subject_token_field_missing',
    key: KEY,
    hint: `check credential_source.format.subject_token_field_name in '${KEY}' against ${against}`,
  });
}

/** A non-empty string field of a JSON object (`credential_source.format.type: json`). */
function fieldOf(json: Record<string, unknown> | undefined, field: string): string | undefined {
  const value = json?.[field];
  return typeof value === 'string' && value !== '' ? value : undefined;
}
