import { Agent, request } from 'node:https';
import {
  WEBHOOK_SIGNATURE_HEADER,
  isHttpsUrl,
  signWebhookPayload,
  webhookSelects,
  type Webhook,
} from '../../clients/index.js';
import type { EmulatorEvent } from './sync-simulation.js';

/**
 * Delivers events to webhooks (specification section 6): one HTTPS POST of the event as JSON to each
 * webhook whose `events` select it (every event when `events` is absent or empty), never to a plain
 * http:// endpoint. A webhook with a secret gets the body's HMAC-SHA256 under it in
 * `X-Fivetran-Signature-256`, as the real service signs (webhook-signature.ts). One attempt: retries are
 * "not shown", and a test wants to see exactly one POST per selected webhook. Each webhook receives its events in the
 * order they happened (one after the other); different webhooks are served in parallel. Every attempt
 * is logged for the control route.
 */

export interface Delivery {
  webhook_id: number;
  event: string;
  endpoint: string;
  /** The receiver's HTTP status, when it answered. */
  status?: number;
  error?: string;
  delivered_at: string;
}

export interface DeliveryOptions {
  /** CA certificates to trust for receivers (a test's own CA); the system roots when absent. */
  ca?: string | Buffer | Array<string | Buffer>;
  timeoutMs?: number;
  now: () => Date;
}

export class EventDelivery {
  readonly log: Delivery[] = [];
  readonly #options: DeliveryOptions;
  /** Keep-alive: one TLS handshake per receiver, not per event. */
  readonly #agent: Agent;

  constructor(options: DeliveryOptions) {
    this.#options = options;
    this.#agent = new Agent({ keepAlive: true, ...(options.ca ? { ca: options.ca } : {}) });
  }

  /** Delivers each event to each selecting webhook; resolves when every attempt has ended. */
  async deliver(
    events: readonly EmulatorEvent[],
    webhooks: readonly Webhook[],
    secretOf: (id: number) => string | undefined = () => undefined,
  ): Promise<Delivery[]> {
    const perWebhook = await Promise.all(
      webhooks.map(async (webhook) => {
        const done: Delivery[] = [];
        for (const event of events)
          if (webhookSelects(webhook.events, event.event))
            done.push(await this.#post(webhook, event, secretOf(webhook.id)));
        return done;
      }),
    );
    const done = perWebhook.flat();
    this.log.push(...done);
    return done;
  }

  close(): void {
    this.#agent.destroy();
  }

  #post(webhook: Webhook, event: EmulatorEvent, secret: string | undefined): Promise<Delivery> {
    const base = {
      webhook_id: webhook.id,
      event: event.event,
      endpoint: webhook.endpoint,
      delivered_at: this.#options.now().toISOString(),
    };
    if (!isHttpsUrl(webhook.endpoint))
      return Promise.resolve({ ...base, error: 'endpoint is not HTTPS; not delivered' });
    const body = JSON.stringify(event);
    return new Promise((resolve) => {
      const req = request(
        webhook.endpoint,
        {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            'user-agent': 'connector-auth-emulator',
            ...(secret ? { [WEBHOOK_SIGNATURE_HEADER]: signWebhookPayload(body, secret) } : {}),
          },
          timeout: this.#options.timeoutMs ?? 5000,
          agent: this.#agent,
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve({ ...base, status: res.statusCode ?? 0 }));
        },
      );
      req.on('timeout', () => req.destroy(new Error('timed out')));
      req.on('error', (error: NodeJS.ErrnoException) => resolve({ ...base, error: error.code ?? error.message }));
      req.end(body);
    });
  }
}
