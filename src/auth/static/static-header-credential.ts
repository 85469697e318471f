import type { CredentialWith } from '../auth-method.js';
import type { OutgoingRequest } from '../capabilities.js';

/** A credential that sets the same headers on every request (Basic, Bearer, API key in a header). */
export function staticHeaderCredential(options: {
  method: string;
  description: string;
  rejectedKey: string;
  headers: Readonly<Record<string, string>>;
}): CredentialWith<'httpRequest'> {
  const entries = Object.entries(options.headers);
  return {
    method: options.method,
    description: options.description,
    rejectedKey: options.rejectedKey,
    sendsSecret: true,
    httpRequest: {
      async authorize(request: OutgoingRequest) {
        for (const [name, value] of entries) request.headers.set(name, value);
      },
    },
  };
}
