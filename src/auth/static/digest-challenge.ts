import { createHash, randomBytes } from 'node:crypto';

/**
 * HTTP Digest (RFC 7616) in its two halves: reading a server's `WWW-Authenticate: Digest …`
 * challenge, and the `Authorization: Digest …` answer to it for one request. MD5 and SHA-256, each
 * also in its `-sess` form; qop `auth` (or none, as RFC 2069 servers ask).
 */

export type DigestAlgorithm = 'MD5' | 'MD5-sess' | 'SHA-256' | 'SHA-256-sess';

export interface DigestChallenge {
  readonly realm: string;
  readonly nonce: string;
  readonly opaque: string | undefined;
  readonly algorithm: DigestAlgorithm;
  /** Whether the server asks for qop=auth; false for an RFC 2069 server that names no qop. */
  readonly qopAuth: boolean;
  /** The nonce ran out but the credentials were right: answer the new nonce, no new password needed. */
  readonly stale: boolean;
}

/** Strongest first: of several Digest challenges, the one answered. */
const PREFERENCE: readonly DigestAlgorithm[] = ['SHA-256', 'SHA-256-sess', 'MD5', 'MD5-sess'];

/**
 * The Digest challenge to answer among a `WWW-Authenticate` header's challenges (a server may offer
 * SHA-256 and MD5 side by side, and Basic beside them); undefined when none is one this client can
 * answer (no Digest, only qop=auth-int, an unknown algorithm).
 */
export function readDigestChallenge(header: string | null): DigestChallenge | undefined {
  if (!header) return undefined;
  const offered = splitChallenges(header)
    .filter((c) => c.scheme.toLowerCase() === 'digest')
    .map((c) => toChallenge(c.params))
    .filter((c): c is DigestChallenge => c !== undefined);
  return offered.sort((a, b) => PREFERENCE.indexOf(a.algorithm) - PREFERENCE.indexOf(b.algorithm))[0];
}

/** The Authorization value for one request: `uri` is the request target, `nc` this nonce's count. */
export function digestAuthorization(
  challenge: DigestChallenge,
  request: { method: string; uri: string; username: string; password: string; nc: number },
): { header: string; ha1: string } {
  const hash = (text: string) =>
    createHash(challenge.algorithm.startsWith('SHA-256') ? 'sha256' : 'md5')
      .update(text, 'utf8')
      .digest('hex');
  const cnonce = randomBytes(16).toString('hex');
  const nc = request.nc.toString(16).padStart(8, '0');
  let ha1 = hash(`${request.username}:${challenge.realm}:${request.password}`);
  if (challenge.algorithm.endsWith('-sess')) ha1 = hash(`${ha1}:${challenge.nonce}:${cnonce}`);
  const ha2 = hash(`${request.method}:${request.uri}`);
  const response = challenge.qopAuth
    ? hash(`${ha1}:${challenge.nonce}:${nc}:${cnonce}:auth:${ha2}`)
    : hash(`${ha1}:${challenge.nonce}:${ha2}`);
  const fields = [
    `username=${quoted(request.username)}`,
    `realm=${quoted(challenge.realm)}`,
    `nonce=${quoted(challenge.nonce)}`,
    `uri=${quoted(request.uri)}`,
    `algorithm=${challenge.algorithm}`,
    `response=${quoted(response)}`,
    ...(challenge.opaque !== undefined ? [`opaque=${quoted(challenge.opaque)}`] : []),
    ...(challenge.qopAuth ? ['qop=auth', `nc=${nc}`, `cnonce=${quoted(cnonce)}`] : []),
  ];
  return { header: `Digest ${fields.join(', ')}`, ha1 };
}

function toChallenge(params: Map<string, string>): DigestChallenge | undefined {
  const realm = params.get('realm');
  const nonce = params.get('nonce');
  const algorithm = PREFERENCE.find((a) => a.toLowerCase() === (params.get('algorithm') ?? 'MD5').toLowerCase());
  const qops = params
    .get('qop')
    ?.split(',')
    .map((q) => q.trim().toLowerCase());
  if (realm === undefined || nonce === undefined || !algorithm) return undefined;
  if (qops && !qops.includes('auth')) return undefined;
  return {
    realm,
    nonce,
    opaque: params.get('opaque'),
    algorithm,
    qopAuth: qops !== undefined,
    stale: params.get('stale')?.toLowerCase() === 'true',
  };
}

function quoted(value: string): string {
  return `"${value.replace(/(["\\])/g, '\\$1')}"`;
}

/** RFC 9110 §11.6.1: `Scheme a=b, c="d, e", Other x=y` → each scheme with its parameters. */
function splitChallenges(header: string): { scheme: string; params: Map<string, string> }[] {
  const challenges: { scheme: string; params: Map<string, string> }[] = [];
  const token = /\s*,?\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+)\s*(=\s*("((?:[^"\\]|\\.)*)"|[^\s,]*))?/y;
  let match: RegExpExecArray | null;
  while ((match = token.exec(header)) !== null && match[0].length > 0) {
    const [, name, assignment, , quotedValue] = match;
    if (assignment === undefined) challenges.push({ scheme: name!, params: new Map() });
    else {
      const value = quotedValue !== undefined ? quotedValue.replace(/\\(.)/g, '$1') : assignment.slice(1).trim();
      challenges.at(-1)?.params.set(name!.toLowerCase(), value);
    }
  }
  return challenges;
}
