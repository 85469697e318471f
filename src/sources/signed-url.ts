import { z } from 'zod';
import { keys } from '../config/index.js';
import { AuthenticationError, SourceUnreachableError } from '../errors/index.js';
import {
  HttpClient,
  clientCertificateRefusedByStatus,
  describeUrl,
  explainTlsFailure,
  guardPlainHttp,
  readBodyStart,
  readSignedUrlExpiry,
  recognizeClientCertificateRefusal,
  type TlsSettings,
  HeaderList,
  warnTlsUnverified,
  withTransientRetries,
} from '../network/index.js';
import { defineSource, type ConnectedSource, type CredentialFor, type ProbeResult } from './source-definition.js';

/**
 * A file behind a signed (presigned) URL: S3, Google Cloud Storage, Azure Blob SAS, CloudFront.
 *
 * The probe is one GET of the first byte (`Range: bytes=0-0`) that does not follow redirects. GET,
 * not HEAD: a presigned S3 URL is signed for one HTTP method, and links are made for downloading,
 * so HEAD would be refused with 403 though the link is good. The range keeps the probe to one byte;
 * servers that ignore it answer 200 and the body is cancelled unread. Healthy: 200, 206 or a
 * redirect (the specification's "200 or 302"), and 416 (an empty object: the signature was
 * accepted before the range was judged).
 *
 * A failure that passes (408, 429, 500, 502, 503, 504, a reset connection) is asked again up to
 * `max_retries` times, as `Retry-After` says or with backoff, as the rest source does: the probe and
 * every download are GETs, which may be sent twice.
 */

export interface SignedUrlSource extends ConnectedSource {
  /** Scheme, host and path: what logs may show of the URL. */
  readonly target: string;
  /** When the URL stops working, if its format says. */
  readonly expiresAt: Date | undefined;
  /**
   * Downloads (GET, redirects followed) and returns the Response; statuses are returned, not
   * thrown. `init.headers` may add e.g. a Range.
   */
  fetch(init?: SignedUrlRequestInit): Promise<Response>;
  /** The body as a stream; a status other than 200/206 throws a classified error. */
  stream(init?: SignedUrlRequestInit): Promise<ReadableStream<Uint8Array>>;
}

export interface SignedUrlRequestInit {
  headers?: HeadersInit;
  signal?: AbortSignal;
}

const HEALTHY = new Set([200, 206, 301, 302, 303, 307, 308, 416]);

export default defineSource({
  name: 'signed-url',
  tls: true,
  summary: 'A file behind a signed URL: probe = GET of the first byte without following redirects (200, 206 or 302)',
  // The URL is the credential: its key is the signed_url method's, read through the credential.
  keys: z.object({ max_retries: keys.integer({ min: 0, max: 10, default: 3 }) }),
  needs: ['signedUrl'],
  async connect(k, credential, context): Promise<SignedUrlSource> {
    const url = credential.signedUrl.read();
    guardPlainHttp({
      url,
      key: 'signed_url',
      exposes: 'the signed URL',
      allowed: context.common.allow_plain_http,
      log: context.log,
    });
    const tls = await context.tls.read();
    if (!tls.verify) warnTlsUnverified(context.log, url.host, 'the signed URL');
    return new SignedUrlConnection(url, credential, tls, context.common.timeout_seconds, {
      maxRetries: k.max_retries,
      log: context.log,
    });
  },
});

/** The retry budget of transient failures (`max_retries`) and where a retry is said. */
interface SignedUrlRetries {
  readonly maxRetries: number;
  readonly log: { warning(message: string): void };
}

/** The URL as update() holds it: each call one GET through its own HTTP client; `close` ends both. */
class SignedUrlConnection implements SignedUrlSource {
  readonly target: string;
  readonly expiresAt: Date | undefined;
  // `#`, not `private`: a connector that logs its source shows none of these (the URL's signature).
  readonly #http: HttpClient;
  readonly #timeoutMs: number;

  readonly #url: URL;
  readonly #credential: CredentialFor<'signedUrl'>;
  readonly #tls: TlsSettings;
  readonly #retries: SignedUrlRetries;
  /** How many tries an answer took, when more than one: a refusal says so. */
  readonly #triesTaken = new WeakMap<Response, number>();

  constructor(
    url: URL,
    credential: CredentialFor<'signedUrl'>,
    tls: TlsSettings,
    timeoutSeconds: number,
    retries: SignedUrlRetries,
  ) {
    this.#url = url;
    this.#credential = credential;
    this.#tls = tls;
    this.#retries = retries;
    this.target = describeUrl(url);
    this.#http = new HttpClient({ tls, timeoutSeconds });
    this.#timeoutMs = timeoutSeconds * 1000;
    this.expiresAt = readSignedUrlExpiry(url)?.expiresAt;
  }

  probe = async (): Promise<ProbeResult> => {
    const started = performance.now();
    const response = await this.send({ headers: { range: 'bytes=0-0' }, redirect: 'manual' });
    if (HEALTHY.has(response.status)) {
      // One byte, or a short redirect page: read to the end so the connection stays open for
      // the download; a server that ignored the range gets its body cancelled after 64 KiB.
      await readBodyStart(response, 64 * 1024);
      const where = response.status >= 300 && response.status < 400 ? redirectTarget(response, this.#url) : '';
      return {
        target: `GET ${this.target} (first byte)`,
        outcome: `HTTP ${response.status}${where}`,
        elapsedMs: performance.now() - started,
      };
    }
    throw await statusError(
      response,
      `${this.#credential.description}: GET ${this.target}`,
      this.#tls,
      this.#triesTaken.get(response),
    );
  };

  fetch = (init: SignedUrlRequestInit = {}): Promise<Response> => this.send(init);

  stream = async (init: SignedUrlRequestInit = {}): Promise<ReadableStream<Uint8Array>> => {
    const response = await this.send(init);
    if ((response.status === 200 || response.status === 206) && response.body)
      return response.body as ReadableStream<Uint8Array>;
    throw await statusError(
      response,
      `${this.#credential.description}: GET ${this.target}`,
      this.#tls,
      this.#triesTaken.get(response),
    );
  };

  close = async (): Promise<void> => {
    await this.#credential.close?.();
    await this.#http.close();
  };

  private async send(init: SignedUrlRequestInit & { redirect?: 'follow' | 'manual' }): Promise<Response> {
    const { maxRetries, log } = this.#retries;
    const where = `${this.#credential.description}: GET ${this.target}`;
    try {
      const { reply, tries } = await withTransientRetries(() => this.sendOnce(init), {
        method: 'GET',
        maxRetries,
        drain: (response) => readBodyStart(response, 64 * 1024),
        ...(init.signal ? { signal: init.signal } : {}),
        onRetry: (reason, waitMs, next) =>
          log.warning(`${where} got ${reason}; try ${next} of ${maxRetries + 1} in ${(waitMs / 1000).toFixed(1)} s`),
      });
      if (tries > 1) this.#triesTaken.set(reply, tries);
      return reply;
    } catch (error) {
      throw await explainTlsFailure(error, {
        url: this.#url,
        tls: this.#tls,
        target: where,
        timeoutMs: this.#timeoutMs,
      });
    }
  }

  /** One GET. A download takes as long as the file does: timeout_seconds bounds the wait for the answer, and each pause in the body. */
  private sendOnce(init: SignedUrlRequestInit & { redirect?: 'follow' | 'manual' }): Promise<Response> {
    return this.#http.send(
      new URL(this.#url),
      {
        method: 'GET',
        headers: new HeaderList(init.headers),
        redirect: init.redirect ?? 'follow',
        deadline: 'headers',
        ...(init.signal ? { signal: init.signal } : {}),
      },
      {
        credential: this.#credential.description,
        urlKey: 'signed_url',
        clientCertificate: this.#tls.clientCertificate,
      },
    );
  }
}

/**
 * 401/403 and the storage services' signature errors are the URL's fault (exit 3): expired,
 * tampered or revoked. 404 means the link points at nothing. The body is read only for the
 * service's error code (S3, GCS and Azure answer XML `<Code>…</Code>`); its other fields, such as
 * S3's `SignatureProvided`, are never shown.
 */
async function statusError(response: Response, target: string, tls: TlsSettings, tries?: number) {
  const body = await readBodyStart(response);
  const status = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}${tries ? `, after ${tries} tries` : ''}`;
  const refusal = recognizeClientCertificateRefusal(response.status, body);
  if (refusal) return clientCertificateRefusedByStatus(refusal, target, tls);
  const code = /<Code>([A-Za-z.]{1,64})<\/Code>/.exec(body)?.[1];
  const expired =
    /Request has expired|ExpiredToken|expired/i.test(/<Message>([^<]{0,200})<\/Message>/.exec(body)?.[1] ?? '') ||
    code === 'ExpiredToken';
  const service = code ? `, ${code}` : '';
  if (
    response.status === 401 ||
    response.status === 403 ||
    (response.status === 400 && /Authorization|Signature|Token|Expired|Authentication/i.test(code ?? ''))
  ) {
    const why = expired
      ? 'the signed URL has expired'
      : 'the signature was not accepted (tampered, expired or revoked URL, or a key that lost access)';
    return new AuthenticationError(`${target} was refused (${status}${service}): ${why}`, {
      code: `http_${response.status}`,
      key: 'signed_url',
      hint: "generate a new signed URL and set it in 'signed_url'",
    });
  }
  if (response.status === 404) {
    return new SourceUnreachableError(`${target} answered ${status}${service}: there is no file at this signed URL`, {
      code: 'http_404',
      key: 'signed_url',
      hint: "check that the object exists and that 'signed_url' was made for it",
    });
  }
  return new SourceUnreachableError(`${target} answered ${status}${service}; expected 200, 206 or 302`, {
    code: `http_${response.status}`,
    key: 'signed_url',
    hint: "check 'signed_url' and that the storage service is up",
  });
}

/** A redirect's host and path, for the probe line; its query may be signed too, so it is dropped. */
function redirectTarget(response: Response, requested: URL): string {
  const location = response.headers.get('location');
  return location ? ` → ${describeUrl(new URL(location, requested))}` : '';
}
