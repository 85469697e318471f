import { isConnectorAuthError, type ConnectorAuthError } from '../../errors/index.js';
import {
  classifyNetworkError,
  explainTlsFailure,
  type RequestContext,
  type TlsFailureContext,
} from '../../network/index.js';

/**
 * An AWS SDK call that failed without an answer from the service (STS, S3): the network's failure,
 * classified as any request's, with a TLS failure explained by a look-only handshake. Our deadline
 * ends the SDK's request as an abort, which is a timeout here; the SDK's own socket timeout (a
 * TimeoutError in the cause chain) classifyNetworkError recognises by itself.
 */
export async function sdkNetworkFailure(
  error: unknown,
  request: RequestContext,
  tls: Omit<TlsFailureContext, 'url' | 'timeoutMs'>,
  timedOut: boolean,
): Promise<ConnectorAuthError> {
  const classified = classifyNetworkError(
    timedOut ? Object.assign(new Error('timed out', { cause: error }), { name: 'TimeoutError' }) : error,
    request,
  );
  const explained = await explainTlsFailure(classified, {
    url: request.url,
    timeoutMs: request.timeoutSeconds * 1000,
    ...tls,
  });
  return isConnectorAuthError(explained) ? explained : classified;
}
