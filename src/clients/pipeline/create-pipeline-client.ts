import { authenticate } from '../../connector/index.js';
import type { Logger } from '../../log/index.js';
import { PipelineClient, type PipelineClientOptions } from './pipeline-client.js';

export interface PipelineConnection {
  /** The service root; paths `v1/...` are joined below it (e.g. `https://api.example.com`). */
  baseUrl: string;
  /** The API key: the user name of HTTP Basic (section 5.1). */
  apiKey: string;
  /** The API secret: the password of HTTP Basic. Registered for redaction before anything is sent. */
  apiSecret: string;
  timeoutSeconds?: number;
  /** PEM of the CA that signs the service's certificate, when it is not a public one. */
  tlsCaCertificate?: string;
  log?: Logger;
}

/**
 * A PipelineClient over the project's REST source: the same code path a connector's `source` takes
 * (secrets registered, Basic header, TLS settings, timeout, http:// refused off loopback). Call
 * `close()` when done: it closes the connection pool.
 */
export async function createPipelineClient(
  connection: PipelineConnection,
  options: Omit<PipelineClientOptions, 'onClose'> = {},
): Promise<PipelineClient> {
  const auth = await authenticate(
    {
      auth_method: 'basic',
      username: connection.apiKey,
      password: connection.apiSecret,
      base_url: connection.baseUrl,
      ...(connection.timeoutSeconds !== undefined ? { timeout_seconds: String(connection.timeoutSeconds) } : {}),
      ...(connection.tlsCaCertificate ? { tls_ca_certificate: connection.tlsCaCertificate } : {}),
    },
    { source: 'rest', ...(connection.log ? { log: connection.log } : {}) },
  );
  return new PipelineClient(auth.source, {
    rejectedKey: auth.credential.rejectedKey,
    ...options,
    onClose: () => auth.close(),
  });
}
