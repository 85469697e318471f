/**
 * "https://x/api" + "items" must give "https://x/api/items"; WHATWG resolution would drop "api".
 * A path is therefore joined below base_url, leading slashes (and backslashes, which WHATWG reads
 * as slashes) dropped; an absolute URL (`scheme://…`) is kept. The `./` keeps a colon in the first
 * segment a path (Google's `values:batchGet`, not a scheme `values:`) and a `//host` or `http:/host`
 * on base_url's origin. (A `..` segment climbs out of base_url's path, as in any URL; never off its origin.)
 */
export function resolveUrl(baseUrl: URL, pathOrUrl: string | URL): URL {
  if (pathOrUrl instanceof URL) return new URL(pathOrUrl);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(pathOrUrl)) return new URL(pathOrUrl);
  return new URL(`./${pathOrUrl.replace(/^[/\\]+/, '')}`, baseUrl);
}

/** base_url as the base of relative paths: a URL without a trailing slash names a file, not a folder. */
export function withTrailingSlash(url: URL): URL {
  const copy = new URL(url);
  if (!copy.pathname.endsWith('/')) copy.pathname += '/';
  return copy;
}
