import { request } from 'node:http';

/**
 * A minimal browser for authorization code flows on loopback: GETs a URL, keeps cookies per host
 * (name, path, expiry: enough for oidc-provider's interaction and session cookies) and follows
 * redirects until a page answers; it can submit a page's form (`submit`). No scripts: the peer's
 * interaction pages decide for the person (see the oidc-provider peer's `decide`).
 */

export interface Page {
  url: URL;
  status: number;
  body: string;
  /** Every URL visited, the first included, in order. */
  visited: URL[];
}

interface Cookie {
  value: string;
  path: string;
  expires: number;
}

export class Browser {
  readonly #jar = new Map<string, Map<string, Cookie>>();

  /** `stopBefore`: a redirect to a URL it accepts is not followed (the page is the redirect itself, its target the last visited). */
  async open(
    start: URL | string,
    options: { maxRedirects?: number; stopBefore?: (url: URL) => boolean; form?: URLSearchParams } = {},
  ): Promise<Page> {
    const maxRedirects = options.maxRedirects ?? 20;
    let url = new URL(start);
    const visited: URL[] = [];
    let form = options.form;
    for (let hop = 0; ; hop++) {
      visited.push(url);
      if (hop > 0 && options.stopBefore?.(url)) return { url, status: 0, body: '', visited };
      const answer = await this.#send(url, form);
      form = undefined; // a redirect after a POST is followed with a GET (303, and 302 as browsers do)
      const location = answer.headers.location;
      if (answer.status >= 300 && answer.status < 400 && location) {
        if (hop >= maxRedirects) throw new Error(`more than ${maxRedirects} redirects from ${start}`);
        url = new URL(location, url);
        continue;
      }
      return { url, status: answer.status, body: answer.body, visited };
    }
  }

  /**
   * Submits the form `formId` (default: the first) of `page` as a browser would (or as its script would): its inputs with their values (hidden
   * ones included), `fields` over them, POSTed form-encoded to its action; redirects are followed.
   */
  submit(page: Page, formId?: string, fields: Record<string, string> = {}): Promise<Page> {
    const id = formId ? `[^>]*\\bid="${formId.replace(/\./g, '\\.')}"` : '';
    const form = new RegExp(`<form${id}[^>]*>([\\s\\S]*?)</form>`).exec(page.body);
    if (!form) throw new Error(`no form${formId ? ` '${formId}'` : ''} on ${page.url.href}`);
    const action = /\baction="([^"]*)"/.exec(form[0].slice(0, form[0].indexOf('>')))?.[1] ?? page.url.href;
    const values = new URLSearchParams();
    for (const [input] of form[1]!.matchAll(/<input\b[^>]*>/g)) {
      const name = /\bname="([^"]*)"/.exec(input)?.[1];
      if (name) values.set(name, /\bvalue="([^"]*)"/.exec(input)?.[1] ?? '');
    }
    for (const [name, value] of Object.entries(fields)) values.set(name, value);
    return this.open(new URL(action, page.url), { form: values });
  }

  #send(
    url: URL,
    form?: URLSearchParams,
  ): Promise<{ status: number; headers: Record<string, string | undefined>; body: string }> {
    const body = form?.toString();
    const headers: Record<string, string> = { cookie: this.#cookieHeader(url), accept: 'text/html' };
    if (body !== undefined)
      Object.assign(headers, {
        'content-type': 'application/x-www-form-urlencoded',
        'content-length': String(Buffer.byteLength(body)),
      });
    return new Promise((resolve, reject) => {
      const req = request(url, { method: body === undefined ? 'GET' : 'POST', headers }, (res) => {
        this.#store(url, res.headers['set-cookie'] ?? []);
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: { location: res.headers.location }, body }),
        );
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  #cookieHeader(url: URL): string {
    const now = Date.now();
    return [...(this.#jar.get(url.host)?.entries() ?? [])]
      .filter(
        ([, c]) =>
          c.expires > now &&
          (url.pathname === c.path || url.pathname.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`)),
      )
      .map(([name, c]) => `${name}=${c.value}`)
      .join('; ');
  }

  #store(url: URL, headers: string[]): void {
    const jar = this.#jar.get(url.host) ?? new Map<string, Cookie>();
    this.#jar.set(url.host, jar);
    for (const header of headers) {
      const [pair = '', ...attributes] = header.split(';').map((part) => part.trim());
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      const cookie: Cookie = { value: pair.slice(eq + 1), path: '/', expires: Infinity };
      for (const attribute of attributes) {
        const [key = '', value = ''] = attribute.split('=');
        if (key.toLowerCase() === 'path') cookie.path = value;
        if (key.toLowerCase() === 'expires') cookie.expires = Date.parse(value);
        if (key.toLowerCase() === 'max-age') cookie.expires = Date.now() + Number(value) * 1000;
      }
      jar.set(name, cookie);
    }
  }
}
