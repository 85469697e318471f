import { SourceUnreachableError } from '../../errors/index.js';
import { describeUrl } from '../../network/index.js';
import type { SecretRegistry } from '../../secrets/index.js';

/**
 * Where a redirect away from base_url's origin may go. The source applies its credential on
 * base_url's origin only (rest.ts), but a server can put it in the Location itself: an API key
 * passed in the query string (`api_key_location=query`) is copied by a redirect that keeps the
 * query. Query parameters that hold a registered secret are dropped from such a hop (the rest of
 * the query is kept exactly as written: a presigned target's signature covers its encoding); a
 * secret anywhere else in the URL (its path, its user name) refuses the redirect.
 */
export function leaveOriginSafely(
  next: URL,
  from: { method: string; url: URL; credential: string },
  registry: SecretRegistry,
  log: { debug(m: string): void },
): URL {
  const safe = new URL(next);
  safe.hash = '';
  if (safe.search.length > 1) {
    const pieces = safe.search.slice(1).split('&');
    const kept = pieces.filter((piece) => !registry.contains(decodeQueryPiece(piece)) && !registry.contains(piece));
    if (kept.length < pieces.length) {
      safe.search = kept.length > 0 ? `?${kept.join('&')}` : '';
      log.debug(
        `${from.credential}: ${pieces.length - kept.length} query parameter(s) holding a credential dropped from the redirect to ${safe.origin}`,
      );
    }
  }
  const labels = registry.labelsIn(safe.href);
  if (labels.length > 0) {
    const key = labels[0]!;
    throw new SourceUnreachableError(
      `${from.credential}: ${from.method} ${describeUrl(from.url)} redirected to ${safe.origin} with the value of '${key}' in the URL; not followed`,
      {
        code: 'redirect_carries_credential',
        key,
        hint: `the source sent a credential to another host in a redirect: check 'base_url', and rotate '${key}' if the redirect is not yours`,
      },
    );
  }
  return safe;
}

/** A query piece `name=value` as the server will read it: `+` a space, %-escapes decoded. */
function decodeQueryPiece(piece: string): string {
  const plus = piece.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(plus);
  } catch {
    return plus;
  }
}
