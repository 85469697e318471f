import { SourceUnreachableError } from '../../errors/index.js';
import { describeUrl, HeaderList, type HttpAnswer } from '../../network/index.js';
import type { AuthContext, Credential } from '../auth-method.js';
import { LINK_LOCAL_METADATA_BASE, metadataUrl } from './metadata-endpoint.js';
import { tokenCredential } from '../tokens/index.js';
import { tokenEndpointFor, type OAuthErrorKeys } from '../token-endpoint/index.js';

/**
 * The one client of the clouds' metadata token services (GCE's metadata server, Azure IMDS): a GET
 * below `metadata_endpoint` (default 169.254.169.254) with the header the service insists on, its
 * OAuth-shaped answers, a token per lifetime. What differs between the clouds is data: a
 * MetadataTokenService each, and the request a method's keys make (MetadataTokenRequest).
 */

/** What one cloud's metadata token service is, as the client needs to know it. */
export interface MetadataTokenService {
  /** The auth method built on it. */
  method: string;
  /** The header the service refuses requests without (so a page fetched through an SSRF cannot mint tokens). */
  requestHeader: Readonly<Record<string, string>>;
  /**
   * A header every answer of the genuine service carries: an answer without it comes from something
   * else listening at that address and is not trusted, whatever its status.
   */
  answerHeader?: { name: string; value: string; service: string; platform: string };
  /** Statuses retried beside the usual 408, 429 and 5xx. */
  retryStatuses?: ReadonlySet<number>;
  /** Where the service answers, and what to use elsewhere: said when nothing answers. */
  unreachableHint: string;
}

/** What a method's keys make of one token request. */
export interface MetadataTokenRequest {
  /** Below the service's root, e.g. `metadata/identity/oauth2/token`. */
  path: string;
  query: Readonly<Record<string, string>>;
  /** The credential, for messages. */
  description: string;
  errorKeys: OAuthErrorKeys;
  /** Statuses that are a final refusal naming a key (the GCE server's 404 for an account not attached). */
  refusalStatuses?: Readonly<Record<number, string>>;
  /** The key to check first when an API refuses a token. */
  rejectedKey: string;
}

export async function metadataTokenCredential(
  service: MetadataTokenService,
  request: MetadataTokenRequest,
  configuredBase: URL | undefined,
  context: AuthContext,
): Promise<Credential> {
  const { description } = request;
  const url = metadataUrl(configuredBase, LINK_LOCAL_METADATA_BASE, request.path);
  const endpoint = await tokenEndpointFor(context, {
    url,
    urlKey: 'metadata_endpoint',
    credential: description,
    method: 'GET',
    errorKeys: request.errorKeys,
    ...(service.retryStatuses ? { retryStatuses: service.retryStatuses } : {}),
    ...(request.refusalStatuses ? { refusalStatuses: request.refusalStatuses } : {}),
    ...(service.answerHeader ? { checkAnswer: genuineAnswer(service.answerHeader, description, url) } : {}),
    unreachableHint: service.unreachableHint,
  });
  return tokenCredential({
    method: service.method,
    description,
    rejectedKey: request.rejectedKey,
    endpoint,
    context,
    obtain: () => endpoint.get(new URLSearchParams(request.query), new HeaderList({ ...service.requestHeader })),
  });
}

/** The check that an answer carries the genuine service's header (google-auth-library checks it too). */
function genuineAnswer(header: NonNullable<MetadataTokenService['answerHeader']>, description: string, url: URL) {
  return (response: HttpAnswer) =>
    response.headers.get(header.name.toLowerCase()) === header.value
      ? undefined
      : new SourceUnreachableError(
          `${description}: ${describeUrl(url)} answered HTTP ${response.status} without '${header.name}: ${header.value}'; it is not the ${header.service}`,
          {
            code: 'not_a_metadata_server',
            key: 'metadata_endpoint',
            hint: `leave 'metadata_endpoint' out on ${header.platform}, or point it at the metadata server`,
          },
        );
}
