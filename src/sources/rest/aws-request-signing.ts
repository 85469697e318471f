import type { AwsKeysCapability, OutgoingRequest } from '../../auth/index.js';
import { sigv4Signer } from '../../auth/index.js';
import { ConfigurationError } from '../../errors/index.js';

/**
 * Signature Version 4 on the requests of the rest source, for an HTTP API behind AWS IAM: API
 * Gateway with IAM authorization (`execute-api`), Amazon OpenSearch Service (`es`) and Serverless
 * (`aoss`), Lambda function URLs (`lambda`), or any service's own endpoint. The signing is the AWS
 * SDK's (`@smithy/signature-v4`, with the SDK's Node hash); this file only says what is signed: the
 * method, base_url's host (the Host header the HTTP client sends, also through an SSH tunnel), the path as
 * sent, the query, the headers the connector set, and the SHA-256 of the exact body bytes, for the
 * service and region of the API. The credentials are the AWS method's (an access key, or a role's
 * session renewed before it ends), asked at each request.
 *
 * The service and region come from `aws_service` and `aws_region`, or from base_url's host when it
 * is one of AWS's own names (`<id>.execute-api.<region>.amazonaws.com`, `….<region>.es.amazonaws.com`,
 * `….<region>.aoss.amazonaws.com`, `<id>.lambda-url.<region>.on.aws`). Each request is signed just
 * before it is sent, so a retry after a 401 carries a fresh signature and date.
 *
 * The URL sent is first written in the one form both sides agree on (canonicalizeUrl): every path
 * segment and query name and value percent-encoded as RFC 3986 says. WHATWG URLs leave `(`, `'`, `*`
 * or `+` as typed, and a space in a query may be `+`; AWS encodes those before comparing signatures,
 * so a URL sent as typed could be refused for a signature computed over the same text.
 */

/** The body of a request as the HTTP client sends it (network/http-client.ts). */
export type SignableBody = string | Uint8Array | URLSearchParams | null | undefined;

export interface RequestSigner {
  /** "SigV4 (execute-api, eu-west-1)": for messages. */
  readonly description: string;
  /** Adds Authorization, X-Amz-Date, X-Amz-Content-Sha256 and, for a session, X-Amz-Security-Token. */
  sign(request: OutgoingRequest, body: SignableBody): Promise<void>;
}

/** Host names that say their service and region: [pattern, service]; the region is the pattern's group 1. */
const AWS_HOSTS: readonly [RegExp, string][] = [
  [/\.execute-api\.([a-z]{2}(?:-[a-z]+)+-\d+)\.amazonaws\.com$/, 'execute-api'],
  [/\.([a-z]{2}(?:-[a-z]+)+-\d+)\.es\.amazonaws\.com$/, 'es'],
  [/\.([a-z]{2}(?:-[a-z]+)+-\d+)\.aoss\.amazonaws\.com$/, 'aoss'],
  [/\.lambda-url\.([a-z]{2}(?:-[a-z]+)+-\d+)\.on\.aws$/, 'lambda'],
];

/** The service and region to sign for: the keys, else what base_url's host says; exit 2 naming the key when neither does. */
export function signingScope(
  host: string,
  configured: { service: string | undefined; region: string | undefined },
): { service: string; region: string } {
  const name = host.toLowerCase().replace(/\.$/, '');
  const known = AWS_HOSTS.map(([pattern, service]) => ({ service, region: pattern.exec(name)?.[1] })).find(
    (m) => m.region !== undefined,
  );
  const service = configured.service?.trim() || known?.service;
  const region = configured.region?.trim() || known?.region;
  if (!service)
    throw new ConfigurationError(
      `invalid configuration for the rest source: an AWS method signs each request for a service, and '${host}' does not name one`,
      {
        code: 'aws_service_missing',
        key: 'aws_service',
        hint: "set 'aws_service' to the API's signing name: execute-api (API Gateway), es (OpenSearch Service), aoss (OpenSearch Serverless), lambda (function URLs)",
      },
    );
  if (!region)
    throw new ConfigurationError(
      `invalid configuration for the rest source: an AWS method signs each request for a region, and '${host}' does not name one`,
      {
        code: 'aws_region_missing',
        key: 'aws_region',
        hint: "set 'aws_region' to the API's region (e.g. us-east-1)",
      },
    );
  return { service, region };
}

export async function awsRequestSigner(
  credential: AwsKeysCapability,
  baseUrl: URL,
  service: string | undefined,
  now: () => number,
): Promise<RequestSigner> {
  const scope = signingScope(baseUrl.hostname, { service, region: credential.region });
  const signer = await sigv4Signer({
    service: scope.service,
    region: scope.region,
    credentials: () => credential.identity(),
    // Every service but S3 signs the path URI-encoded once more (AWS's SigV4 rules); S3 signs it as sent.
    uriEscapePath: scope.service !== 's3',
  });
  return {
    description: `SigV4 (${scope.service}, ${scope.region})`,
    async sign(request, body) {
      const url = request.url;
      canonicalizeUrl(url);
      const headers: Record<string, string> = { host: url.host };
      request.headers.forEach((value, name) => (headers[name] = value));
      const signed = await signer.sign(
        {
          method: request.method,
          url,
          headers,
          body: body instanceof URLSearchParams ? body.toString() : (body ?? undefined),
        },
        new Date(now()),
      );
      for (const [name, value] of Object.entries(signed)) {
        if (name === 'host') continue;
        if (request.headers.get(name) !== value) request.headers.set(name, value);
      }
    },
  };
}

/** Path segments and query parameters re-encoded as RFC 3986 (`%20` for a space, `%2B` for a plus), in place. */
export function canonicalizeUrl(url: URL): void {
  url.pathname = url.pathname.split('/').map(canonicalSegment).join('/');
  // URLSearchParams reads `+` as a space, as every form-encoded query means it.
  const pairs = [...url.searchParams];
  url.search = pairs.length ? pairs.map(([name, value]) => `${rfc3986(name)}=${rfc3986(value)}`).join('&') : '';
}

function rfc3986(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** A segment with a malformed escape (`%zz`) is left as typed: re-encoding it would change what it names. */
function canonicalSegment(segment: string): string {
  try {
    return rfc3986(decodeURIComponent(segment));
  } catch {
    return segment;
  }
}
