import { ConfigurationError } from '../../errors/index.js';

/**
 * `authorize()` of a credential that a source uses itself (a database password, an SSH key, an AWS
 * key the SDK signs with) rather than putting on HTTP requests. Sources that take HTTP requests do
 * not accept these methods; this guards a custom source that would try, with the method to use instead.
 */
export function notForHttp(method: string, sources: string, instead: string): () => Promise<never> {
  return async () => {
    throw new ConfigurationError(`auth_method '${method}' is for ${sources}; it cannot authorize an HTTP request`, {
      code: `${method}_not_for_http`,
      key: 'auth_method',
      hint: instead,
    });
  };
}
