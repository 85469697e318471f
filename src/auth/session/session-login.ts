import type { HttpClient, HttpReply } from '../../network/index.js';
import type { IssuedToken } from '../tokens/index.js';
import { loginAnswerError, tokenMissingError, type LoginAnswerContext } from './login-answer.js';

/**
 * One login request of `session_token`, and where its answer carries the session: a field of the
 * JSON body (a dot path), a header, or a cookie; its lifetime from a field of the body, else the
 * configured one.
 */
export interface LoginRequest {
  url: URL;
  method: string;
  /** `json`: a JSON object; `form`: application/x-www-form-urlencoded. */
  format: 'json' | 'form';
  fields: Readonly<Record<string, string>>;
  /** Where the token is, as `session_token_location` says it. */
  location: TokenLocation;
  /** The body field that holds the lifetime in seconds (`expires_in`). */
  expiresInField: string;
  /** Used when the answer says nothing of the lifetime. */
  lifetimeSeconds: number;
}

export interface TokenLocation {
  in: 'body' | 'header' | 'cookie';
  /** A dot path into the JSON body (`data.token`), a header name, a cookie name. */
  name: string;
}

/** `body:data.token`, `header:X-Auth-Token`, `cookie:sessionid`: undefined when it is none of these. */
export function parseTokenLocation(text: string): TokenLocation | undefined {
  const match = /^(body|header|cookie):(.+)$/.exec(text.trim());
  if (!match) return undefined;
  const name = match[2]!.trim().replace(/^\$\./, '');
  return name ? { in: match[1] as TokenLocation['in'], name } : undefined;
}

export async function login(
  http: HttpClient,
  request: LoginRequest,
  context: LoginAnswerContext & { locationKey: string },
): Promise<IssuedToken> {
  const headers = new Headers({ accept: 'application/json' });
  const body = request.format === 'json' ? JSON.stringify(request.fields) : new URLSearchParams(request.fields);
  if (request.format === 'json') headers.set('content-type', 'application/json');
  const reply = await http.request(
    request.url,
    { method: request.method, headers, body },
    { credential: context.credential, urlKey: context.urlKey },
  );
  if (reply.status < 200 || reply.status >= 300) {
    await reply.discard();
    throw loginAnswerError(reply, request.url, context);
  }
  const json = await readJson(reply);
  const value = tokenIn(reply, json, request.location);
  if (!value) throw tokenMissingError(`${request.location.in}:${request.location.name}`, request.url, context);
  const announced = Number(valueAt(json, request.expiresInField));
  const seconds = Number.isFinite(announced) && announced > 0 ? announced : request.lifetimeSeconds;
  return { value, lifetimeMs: seconds * 1000 };
}

async function readJson(reply: HttpReply): Promise<unknown> {
  const text = await reply.text();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // A session in a header or a cookie may come with any body.
    return undefined;
  }
}

function tokenIn(reply: HttpReply, json: unknown, location: TokenLocation): string | undefined {
  if (location.in === 'header') return reply.headers.get(location.name)?.trim() || undefined;
  if (location.in === 'cookie') return cookieValue(reply.headers.get('set-cookie') ?? '', location.name);
  const value = valueAt(json, location.name);
  return typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : undefined;
}

/** A field of a JSON value by dot path (`data.token`, `items.0.id`). */
function valueAt(json: unknown, path: string): unknown {
  let here = json;
  for (const step of path.split('.')) {
    if (here === null || typeof here !== 'object') return undefined;
    here = (here as Record<string, unknown>)[step];
  }
  return here;
}

/** Several Set-Cookie headers arrive joined by ", "; a cookie's `Expires=Wed, 21 Oct …` has a comma too. */
function cookieValue(setCookie: string, name: string): string | undefined {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const match = new RegExp(`(?:^|[,;]\\s*)${escaped}=([^;,\\s]*)`).exec(setCookie);
  return match?.[1] || undefined;
}
