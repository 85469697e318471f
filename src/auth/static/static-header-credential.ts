import type { Credential, OutgoingRequest } from '../auth-method.js';

/** A credential that sets the same headers on every request (Basic, Bearer, API key in a header). */
export function staticHeaderCredential(options: {
  method: string;
  description: string;
  rejectedKey: string;
  headers: Readonly<Record<string, string>>;
}): Credential {
  const entries = Object.entries(options.headers);
  return {
    method: options.method,
    description: options.description,
    rejectedKey: options.rejectedKey,
    sendsSecret: true,
    async authorize(request: OutgoingRequest) {
      for (const [name, value] of entries) request.headers.set(name, value);
    },
  };
}
