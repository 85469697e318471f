import type { Credential } from '../../auth/index.js';
import { AuthenticationError, SourceUnreachableError } from '../../errors/index.js';
import {
  clientCertificateRefusedByStatus,
  oneLine,
  recognizeClientCertificateRefusal,
  type HttpAnswer,
  type TlsSettings,
} from '../../network/index.js';

/**
 * What the REST source's answers mean when they are not what was asked for: a status that is not
 * healthy, in the probe or on a data request of update(), and a body that is not the JSON
 * `source.json()` promised. Each is a classified error naming the URL and the key to look at.
 */

/**
 * The error a non-healthy status means: 401/403 are the credential's fault, and so is nginx's 400
 * about the client certificate (given the body's start); anything else is the source's. In the
 * probe, the request is `probe_path`'s and its hint names it; on a data request of update() (`data`)
 * the path is the connector's, and a 5xx is the source failing, not a setting to change.
 */
export function statusError(
  response: HttpAnswer,
  target: string,
  credential: Credential,
  expected: readonly number[],
  details: {
    body?: string;
    tls?: Pick<TlsSettings, 'clientCertificate'>;
    quoteService?: boolean;
    data?: boolean;
    /** How many times the request was sent (transient failures are asked again). */
    tries?: number;
  } = {},
) {
  const refusal = recognizeClientCertificateRefusal(response.status, details.body ?? '');
  if (refusal) return clientCertificateRefusedByStatus(refusal, target, details.tls);
  // AWS says in the body whether the signature or the permission failed: worth quoting.
  const said = details.quoteService ? awsRefusalMessage(details.body ?? '') : undefined;
  const tried = details.tries !== undefined && details.tries > 1 ? `, after ${details.tries} tries` : '';
  const status = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}${said ? `: ${said}` : ''}${tried}`;
  if (response.status === 401 || response.status === 403) {
    const verb =
      response.status === 401 ? 'rejected the credentials' : 'denied access (the credentials lack a permission)';
    return new AuthenticationError(`${target} ${verb} (${status})`, {
      code: `http_${response.status}`,
      key: credential.rejectedKey,
      hint: `check '${credential.rejectedKey}'${response.status === 403 ? ' and the permissions it grants' : ''}`,
    });
  }
  if (details.data) {
    const failed = response.status >= 500;
    return new SourceUnreachableError(`${target} answered ${status}`, {
      code: `http_${response.status}`,
      key: 'base_url',
      hint: failed
        ? 'the source failed on this request: retry later; the next run resumes from the last checkpoint'
        : "check the path the connector asks for (it is joined to 'base_url')",
    });
  }
  return new SourceUnreachableError(`${target} answered ${status}; expected ${expected.join(' or ')}`, {
    code: `http_${response.status}`,
    key: 'probe_path',
    hint: "check 'base_url' and 'probe_path', or list the healthy statuses in 'probe_expect_status'",
  });
}

/** `source.json()` read a body that does not parse: the source is not answering JSON there. */
export function notJsonError(response: HttpAnswer, target: string): SourceUnreachableError {
  const type = (response.headers.get('content-type') ?? 'no content type').split(';')[0]!.trim();
  // V8's SyntaxError quotes the text it choked on: not repeated here.
  return new SourceUnreachableError(
    `${target} answered HTTP ${response.status} with a body that is not valid JSON (${type})`,
    {
      code: 'invalid_json',
      key: 'base_url',
      hint: "check the path the connector asks for (joined to 'base_url'): it answered something other than JSON",
    },
  );
}

/**
 * What an AWS service said when it refused a signed request, as one bounded line: `{"message"}`
 * (API Gateway, OpenSearch), `{"Message"}` (Lambda), or S3's XML `<Message>`. Undefined otherwise.
 * Redacted before it is folded and cut (oneLine): the message may echo what was sent.
 */
export function awsRefusalMessage(body: string): string | undefined {
  let message: unknown;
  try {
    const json = JSON.parse(body) as Record<string, unknown> | null;
    message = json?.message ?? json?.Message;
  } catch {
    message = /<Message>([^<]{1,400})<\/Message>/.exec(body)?.[1];
  }
  return oneLine(message, 300);
}
