import { z } from 'zod';
import type { HttpClient } from '../../network/index.js';
import type { SecretRegistry } from '../../secrets/index.js';
import type { AuthContext } from '../auth-method.js';
import { awsSessionCredential, cachedAwsSession, type AwsCredential, type AwsSession } from '../aws/index.js';
import type { AwsCredentialIdentity } from '../capabilities.js';
import { createTokenHttpClient } from '../token-endpoint/index.js';
import type { IssuedToken } from '../tokens/index.js';
import { HeaderList } from '../../network/index.js';

/**
 * The session of AWS's local credential endpoints: EC2's instance metadata service
 * (instance-metadata-session.ts) and the container endpoint of ECS tasks and EKS Pod Identity
 * (container-credentials-session.ts). Both serve the same JSON document,
 * `{AccessKeyId, SecretAccessKey, Token, Expiration}` (IMDS adds `Code: "Success"`), the expiry as an
 * ISO 8601 time; they differ only in how the document is fetched, which each gives as `fetchDocument`.
 * Here, what they share: the HTTP client (made at the first fetch, verified as any identity service
 * is: system roots plus tls_ca_certificate), requests that are never redirected, the credentials
 * registered as secrets the moment they are read, and the TokenCache (one fetch per lifetime, renewed
 * before the end).
 */

/** An answer of the endpoint: its status and text, and the URL asked (for messages). */
export interface EndpointAnswer {
  status: number;
  text: string;
  url: URL;
}

/** One request to the endpoint, never redirected; nothing answering is explained with the session's `unreachableHint`. */
export type AskEndpoint = (method: 'GET' | 'PUT', url: URL, headers: HeadersInit) => Promise<EndpointAnswer>;

/** A credentials document as fetched, with what the session says or throws about it. */
export interface FetchedDocument {
  document: CredentialsDocument;
  /** Whose credentials, for the debug line after the key id: " of role 'x'", or ''. */
  whose: string;
  /** Thrown when a part of the credentials is missing or the expiry is not a time. */
  incomplete: () => Error;
}

export interface DocumentSessionOptions {
  /** The credential, for messages. */
  description: string;
  /** What the credentials are called in log lines, e.g. 'container credentials'. */
  noun: string;
  context: AuthContext;
  /** The configuration key of the endpoint's address, named when nothing answers. */
  urlKey: string;
  /** Why nothing may answer, and what to do instead. */
  unreachableHint: string;
  /** How the document is fetched: the one thing EC2 and the container platforms do differently. */
  fetchDocument(ask: AskEndpoint): Promise<FetchedDocument>;
}

/** The session, and the requests it makes, for a caller that asks the endpoint more (EC2's region). */
export interface DocumentSession extends AwsSession {
  ask: AskEndpoint;
}

export function awsDocumentSession(o: DocumentSessionOptions): DocumentSession {
  const { context, description } = o;
  let http: Promise<HttpClient> | undefined;
  const client = () => (http ??= createTokenHttpClient(context.tls, context.common.timeout_seconds));
  const ask: AskEndpoint = async (method, url, headers) => {
    const reply = await (
      await client()
    ).request(
      url,
      { method, headers: new HeaderList(headers), redirect: 'manual' },
      { credential: description, urlKey: o.urlKey, unreachableHint: o.unreachableHint },
    );
    return { status: reply.status, text: await reply.text(), url };
  };
  const session = cachedAwsSession({
    description,
    noun: o.noun,
    context,
    release: async () => (await http?.catch(() => undefined))?.close(),
    fetch: async () => {
      const requestedAt = context.now();
      const { document, whose, incomplete } = await o.fetchDocument(ask);
      const issued = credentialsOf(document, requestedAt, context.secrets);
      if (!issued) throw incomplete();
      context.log.debug(
        `${description}: credentials ${issued.value.accessKeyId}${whose}, valid for ${Math.round(issued.lifetimeMs / 1000)}s`,
      );
      return issued;
    },
  });
  return { ...session, ask };
}

const credentialsDocument = z.looseObject({
  Code: z.string().optional(),
  Message: z.string().optional(),
  AccessKeyId: z.string().optional(),
  SecretAccessKey: z.string().optional(),
  Token: z.string().optional(),
  Expiration: z.string().optional(),
});

export type CredentialsDocument = z.infer<typeof credentialsDocument>;

/** The document in `text`, or undefined when it is not one (not JSON, or another shape). */
export function parseCredentialsDocument(text: string): CredentialsDocument | undefined {
  try {
    const parsed = credentialsDocument.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The credentials of a complete document, registered as secrets the moment they are read, with their
 * lifetime counted from `requestedAt`; undefined when a part is missing or the expiry is not a time.
 */
function credentialsOf(
  document: CredentialsDocument,
  requestedAt: number,
  secrets: Pick<SecretRegistry, 'register'>,
): IssuedToken<AwsCredentialIdentity> | undefined {
  const { AccessKeyId, SecretAccessKey, Token, Expiration } = document;
  if (!AccessKeyId || !SecretAccessKey || !Token) return undefined;
  secrets.register('aws_session_secret_access_key', SecretAccessKey);
  secrets.register('aws_session_token', Token);
  const expiration = new Date(Expiration ?? NaN);
  if (Number.isNaN(expiration.getTime())) return undefined;
  return {
    value: { accessKeyId: AccessKeyId, secretAccessKey: SecretAccessKey, sessionToken: Token, expiration },
    lifetimeMs: expiration.getTime() - requestedAt,
  };
}

/**
 * The credential of a role the platform chose (the instance's profile, the task definition, the Pod
 * Identity association): configuration.json does not name it, so a refusal names `auth_method`,
 * which is what chose it.
 */
export function platformRoleCredential(
  session: AwsSession,
  role: PlatformRole,
  region: string | undefined,
): AwsCredential {
  return awsSessionCredential(session, { ...role, sessionKey: 'auth_method', region: region?.trim() });
}

/** What a platform role's messages call it. */
export interface PlatformRole {
  method: string;
  description: string;
  /** Who signs, in a refusal: "the instance profile's role". */
  signer: string;
}
