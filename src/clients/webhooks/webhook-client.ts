import { AuthenticationError, SourceUnreachableError } from '../../errors/index.js';
import { FeatureNotAvailableError, InvalidRequestError } from '../transport/index.js';
import { describeRequest, type HttpTransport, type TransportResponse } from '../transport/index.js';
import { sendWithRetry, type RetryDecision, type RetryOptions } from '../transport/index.js';
import { oneLine } from '../../network/index.js';
import { bodyField, parseJsonBody, validate } from '../transport/index.js';
import {
  listedWebhookSchema,
  webhookSchema,
  type WebhookDeleteResult,
  type WebhookFetchResult,
  type WebhookListResult,
} from './webhook-records.js';
import { z } from 'zod';

export interface WebhookClientOptions {
  retry?: RetryOptions;
  /** The key (configuration key or variable) to name when the service answers 401 (default `token`). */
  rejectedKey?: string;
  onClose?: () => Promise<void>;
}

/**
 * The sync webhook interface (specification 4.4–4.6). The service speaks two wire forms for the same
 * outcome (a 404, or a 200 whose body says `not_found`); this client returns one result type for
 * both, so a caller writes one `switch`. Credentials failures throw: 401 an AuthenticationError, 403
 * (feature not available for the organization) a FeatureNotAvailableError with the service's message.
 */
export class WebhookClient {
  readonly #transport: HttpTransport;
  readonly #retry: RetryOptions;
  readonly #rejectedKey: string;
  readonly #onClose: (() => Promise<void>) | undefined;

  constructor(transport: HttpTransport, options: WebhookClientOptions = {}) {
    this.#transport = transport;
    this.#retry = options.retry ?? {};
    this.#rejectedKey = options.rejectedKey ?? 'token';
    this.#onClose = options.onClose;
  }

  /** GET /api/v1/webhooks/<id> (section 4.4). */
  async get(webhookId: number): Promise<WebhookFetchResult> {
    const path = webhookPath(webhookId);
    const { response, body, target, text } = await this.#call('GET', path, 'always');
    if (response.status === 404) return this.#notFound(text, body, target);
    const status = this.#outcome(response, body, target, ['success', 'not_found', 'error'] as const);
    if (status === 'success')
      return { status, webhook: validate(webhookSchema, bodyField(body, 'data'), target, 'data') };
    if (status === 'error') return withMessage({ status }, body);
    return { status };
  }

  /** GET /api/v1/webhooks (section 4.5): every webhook of the workspace. */
  async list(): Promise<WebhookListResult> {
    const path = 'api/v1/webhooks';
    const { response, body, target } = await this.#call('GET', path, 'always');
    const status = this.#outcome(response, body, target, ['success', 'error'] as const);
    if (status === 'error') return withMessage({ status }, body);
    return { status, webhooks: validate(z.array(listedWebhookSchema), bodyField(body, 'data'), target, 'data') };
  }

  /**
   * DELETE /api/v1/webhooks/<id> (section 4.6). Retried on 429 only: after a 5xx the webhook may be
   * gone already, and a second try would report `not_found` for a delete that worked.
   */
  async delete(webhookId: number): Promise<WebhookDeleteResult> {
    const path = webhookPath(webhookId);
    const { response, body, target, text } = await this.#call('DELETE', path, 'rate-limit-only');
    // A DELETE answered "done, nothing to say" (204) or "accepted" (202), as HTTP services and
    // gateways commonly do, has removed the webhook (or will): no body to look for a status in.
    if (response.status === 204 || response.status === 202) return { status: 'deleted' };
    if (response.status === 404) return this.#notFound(text, body, target);
    const status = this.#outcome(response, body, target, ['deleted', 'not_found', 'error'] as const);
    if (status === 'error') return withMessage({ status }, body);
    return { status };
  }

  async close(): Promise<void> {
    await this.#onClose?.();
  }

  async #call(method: string, path: string, decision: RetryDecision) {
    const response = await sendWithRetry(
      () => this.#transport.request(path, { method, headers: { accept: 'application/json' }, retries: 0 }),
      decision,
      this.#retry,
    );
    const target = describeRequest(method, response, path);
    // The body is always read (the connection goes back to the pool), but only a 200 must be JSON:
    // a 401, 403 or 404 from a gateway or proxy is often text or HTML, and what it means follows
    // from its status. Parsing it strictly would turn a rejected token into "invalid response".
    const text = await response.text();
    const body = response.status === 200 ? parseJsonBody(text, response.status, target) : parseTolerantly(text);
    return { response, body, target, text };
  }

  /**
   * A 404 is the service saying the webhook does not exist when its body is the service's (JSON) or
   * empty. An HTML or text 404 comes from something else at that address (a proxy, a wrong base
   * URL, a path the service does not have): reading it as `not_found` would make a misconfiguration
   * look like a webhook already deleted.
   */
  #notFound(text: string, body: unknown, target: string): { status: 'not_found' } {
    if (text.trim() === '' || body !== undefined) return { status: 'not_found' };
    throw new SourceUnreachableError(`${target} answered HTTP 404 with a body that is not the service's (not JSON)`, {
      code: 'http_404',
      hint: 'check that the base URL points at the webhook API itself, not a proxy or another site',
    });
  }

  /** The `status` field of a 200 body, or the error that a 401/403/other status means. */
  #outcome<const T extends readonly string[]>(
    response: TransportResponse,
    body: unknown,
    target: string,
    allowed: T,
  ): T[number] {
    const s = response.status;
    if (s === 401)
      throw new AuthenticationError(`${target} rejected the credentials (HTTP 401)`, {
        code: 'http_401',
        key: this.#rejectedKey,
        hint: `check '${this.#rejectedKey}' and that the service expects this Authorization scheme (bearer or basic)`,
      });
    if (s === 403) {
      const serviceMessage = oneLine(bodyField(body, 'message')) ?? 'feature not available';
      throw new FeatureNotAvailableError(
        `${target}: the webhook feature is not available for this organization (HTTP 403: ${serviceMessage})`,
        {
          code: 'feature_not_available',
          serviceMessage,
          hint: 'ask the account owner to enable webhooks for the organization; the credentials themselves were accepted',
        },
      );
    }
    if (s === 200) {
      const status = bodyField(body, 'status');
      if (typeof status === 'string' && (allowed as readonly string[]).includes(status)) return status as T[number];
      throw new SourceUnreachableError(
        `${target} answered HTTP 200 with status ${JSON.stringify(status)}; expected ${allowed.join(', ')}`,
        {
          code: 'invalid_response',
        },
      );
    }
    if (s >= 400 && s < 500 && s !== 429)
      throw new InvalidRequestError(`${target} refused the request (HTTP ${s})`, { code: `http_${s}` });
    throw new SourceUnreachableError(`${target} answered HTTP ${s}${s === 429 || s >= 500 ? ' after retries' : ''}`, {
      code: `http_${s}`,
      hint: 'the service failed or is rate limiting; try again later',
    });
  }
}

/** Section 4.4 and 4.6: the path parameter is an integer; anything else is refused before sending. */
export function checkWebhookId(value: unknown): number {
  const id = typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : value;
  if (typeof id === 'number' && Number.isSafeInteger(id) && id >= 0) return id;
  throw new InvalidRequestError('webhook_id must be a whole number (the id returned by the service)', {
    code: 'invalid_webhook_id',
    key: 'webhook_id',
    hint: 'pass the integer id of the webhook, e.g. 42',
  });
}

function webhookPath(webhookId: number): string {
  return `api/v1/webhooks/${checkWebhookId(webhookId)}`;
}

/** A body that is JSON, or undefined: an error answer's body is a courtesy, not a contract. */
function parseTolerantly(text: string): unknown {
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function withMessage<T extends { status: 'error' }>(result: T, body: unknown): T & { message?: string } {
  const message = oneLine(bodyField(body, 'message'));
  return message ? { ...result, message } : result;
}
