import { authenticate } from '../../connector/index.js';
import type { Logger } from '../../log/index.js';
import { WebhookClient, type WebhookClientOptions } from './webhook-client.js';

/**
 * The specification declares HTTP Basic for the webhook interface but its sample sends a Bearer
 * token (section 5.2); the real service documents Bearer. Bearer is therefore the default, Basic a
 * choice.
 */
export type WebhookAuth =
  { authMethod?: 'bearer'; token: string } | { authMethod: 'basic'; username: string; password: string };

export type WebhookConnection = WebhookAuth & {
  /** The service root; paths `api/v1/webhooks...` are joined below it. */
  baseUrl: string;
  timeoutSeconds?: number;
  tlsCaCertificate?: string;
  log?: Logger;
};

/** A WebhookClient over the project's REST source. Call `close()` when done. */
export async function createWebhookClient(
  connection: WebhookConnection,
  options: Omit<WebhookClientOptions, 'onClose'> = {},
): Promise<WebhookClient> {
  const credentials: Record<string, string> =
    connection.authMethod === 'basic'
      ? { auth_method: 'basic', username: connection.username, password: connection.password }
      : { auth_method: 'bearer', token: connection.token };
  const auth = await authenticate(
    {
      ...credentials,
      base_url: connection.baseUrl,
      ...(connection.timeoutSeconds !== undefined ? { timeout_seconds: String(connection.timeoutSeconds) } : {}),
      ...(connection.tlsCaCertificate ? { tls_ca_certificate: connection.tlsCaCertificate } : {}),
    },
    { source: 'rest', ...(connection.log ? { log: connection.log } : {}) },
  );
  return new WebhookClient(auth.source, {
    rejectedKey: auth.credential.rejectedKey,
    ...options,
    onClose: () => auth.close(),
  });
}
