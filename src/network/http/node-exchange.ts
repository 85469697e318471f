import type { ClientRequest, IncomingMessage } from 'node:http';
import type { HttpAgents } from './http-agents.js';

/**
 * One request and its answer's headers over Node's http client, with the rules every request of
 * the project follows:
 * - `signal` ends the exchange at any point, body included: the request and the answer are
 *   destroyed with the signal's reason (a TimeoutError for timeout_seconds), so whoever reads the
 *   body sees that reason, which classifyNetworkError reads as a timeout;
 * - a pause of `idleTimeoutMs` with nothing arriving, before or during the body, fails the same way;
 * - a request that finds its reused keep-alive connection closed by the server (it timed the
 *   connection out as we took it) is sent once more on a new one, when its method is idempotent.
 */
export interface ExchangeInit {
  method: string;
  headers: Record<string, string>;
  body: string | Uint8Array | null;
  signal: AbortSignal;
  idleTimeoutMs: number;
}

const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'TRACE']);

export async function exchange(agents: HttpAgents, url: URL, init: ExchangeInit): Promise<IncomingMessage> {
  try {
    return await exchangeOnce(agents, url, init);
  } catch (error) {
    if (!(error instanceof StaleConnectionError)) throw error;
    return exchangeOnce(agents, url, init);
  }
}

/** The server closed a kept-alive connection just as it was reused: nothing was answered. */
class StaleConnectionError extends Error {}

function exchangeOnce(agents: HttpAgents, url: URL, init: ExchangeInit): Promise<IncomingMessage> {
  const { signal } = init;
  if (signal.aborted) return Promise.reject(abortReason(signal));
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return Promise.reject(new TypeError(`unsupported URL scheme '${url.protocol}' (http: or https: only)`));
  const send = process.getBuiltinModule(url.protocol === 'https:' ? 'node:https' : 'node:http').request;
  const headers = { ...init.headers };
  if (init.body != null && !hasHeader(headers, 'content-length'))
    headers['content-length'] = String(Buffer.byteLength(init.body));

  return new Promise<IncomingMessage>((resolve, reject) => {
    let answer: IncomingMessage | undefined;
    const req: ClientRequest = send(url, { method: init.method, headers, agent: agents.for(url) });
    const fail = (error: Error) => {
      // The answer first: its reader gets this error, not the "aborted" a destroyed request causes.
      answer?.destroy(error);
      req.destroy(error);
    };
    const onAbort = () => fail(abortReason(signal));
    const done = () => signal.removeEventListener('abort', onAbort);
    signal.addEventListener('abort', onAbort, { once: true });
    req.setTimeout(init.idleTimeoutMs, () =>
      fail(new DOMException(`nothing arrived for ${init.idleTimeoutMs / 1000}s`, 'TimeoutError')),
    );
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (answer) return; // the answer's reader sees it
      done();
      const stale = req.reusedSocket && error.code === 'ECONNRESET' && IDEMPOTENT.has(init.method);
      reject(stale ? new StaleConnectionError(error.message, { cause: error }) : error);
    });
    req.on('response', (response: IncomingMessage) => {
      answer = response;
      response.once('close', done);
      resolve(response);
    });
    req.end(init.body ?? undefined);
  });
}

function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new DOMException('the request was aborted', 'AbortError');
}

function hasHeader(headers: Record<string, string>, name: string): boolean {
  return Object.keys(headers).some((key) => key.toLowerCase() === name);
}
