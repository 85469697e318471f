/** How a URL is shown in messages and logs: scheme, host and path; never the query (it may hold a key). */
export function describeUrl(url: URL | string): string {
  const u = typeof url === 'string' ? safeUrl(url) : url;
  if (!u) return '<invalid URL>';
  return `${u.protocol}//${u.host}${u.pathname}`;
}

/** True for hosts that never leave the machine: plain http there exposes nothing on a network. */
export function isLoopbackHost(hostname: string): boolean {
  const host = unbracketed(hostname).toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * https://, or http:// on a loopback host: a URL that carries a secret without it crossing a network
 * in clear, whatever `allow_plain_http` says (the rule for identity services and the pages a person
 * is sent to).
 */
export function encryptedOrLoopback(url: URL): boolean {
  return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname));
}

function safeUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/** A host as it stands before `:port`: an IPv6 address in brackets, anything else as it is. */
export function bracketed(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/** A host as a URL's `hostname` gives it, without the brackets of an IPv6 address. */
export function unbracketed(host: string): string {
  return host.replace(/^\[|\]$/g, '');
}
