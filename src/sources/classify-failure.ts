import { isConnectorAuthError, type ConnectorAuthError } from '../errors/index.js';

/**
 * The opening every source's classify-*-error shares. An error that is already one of the project's
 * (a tunnel's, a credential's, a classifier's own, met again on the way out) passes through
 * unchanged; any other is classified by `classify`, given the line each of its messages starts
 * with: the credential's description, then where it was used ("password auth as 'etl':
 * postgres://etl@db:5432/app (sslmode=verify-full)").
 */
export function classifyUnlessOurs<R>(
  error: unknown,
  credential: { description: string },
  where: string,
  classify: (target: string) => R,
): ConnectorAuthError | R {
  if (isConnectorAuthError(error)) return error;
  return classify(`${credential.description}: ${where}`);
}
