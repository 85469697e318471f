import { z } from 'zod';
import { keys } from '../../config/index.js';
import { defineAuthMethod, type CredentialWith } from '../auth-method.js';
import type { OutgoingRequest } from '../capabilities.js';
import { oauth1Header, type OAuth1Secrets } from './oauth1-signature.js';

/**
 * OAuth 1.0a (RFC 5849): each request signed with the consumer's and the token's secrets, as
 * NetSuite's token-based authentication (TBA) and other older APIs take it. No token is fetched:
 * the four values come from the integration record and the access token a person created.
 */
export default defineAuthMethod({
  name: 'oauth1',
  summary: 'OAuth 1.0a request signatures (HMAC-SHA256, HMAC-SHA1): consumer and token keys, as NetSuite TBA',
  keys: z.object({
    oauth1_consumer_key: keys.text(),
    oauth1_consumer_secret: keys.text(),
    oauth1_token: keys.optionalText(),
    oauth1_token_secret: keys.optionalText(),
    oauth1_realm: keys.optionalText(),
    oauth1_signature_method: keys.oneOf(['HMAC-SHA256', 'HMAC-SHA1'], 'HMAC-SHA256'),
  }),
  create(k, { secrets, now }): CredentialWith<'httpRequest'> {
    // NetSuite treats all four as secrets; the header carries the key and the token in the clear,
    // so they are registered too: a log line never shows them.
    for (const key of ['oauth1_consumer_key', 'oauth1_consumer_secret', 'oauth1_token', 'oauth1_token_secret'] as const)
      if (k[key]) secrets.register(key, k[key]);
    const signer: OAuth1Secrets = {
      consumerKey: k.oauth1_consumer_key,
      consumerSecret: k.oauth1_consumer_secret,
      token: k.oauth1_token,
      tokenSecret: k.oauth1_token_secret,
      realm: k.oauth1_realm,
      signatureMethod: k.oauth1_signature_method,
    };
    return {
      method: 'oauth1',
      description: `OAuth 1.0a (${k.oauth1_signature_method})${k.oauth1_realm ? ` for realm '${k.oauth1_realm}'` : ''}`,
      // The secret a person most often pastes wrong or revokes: the access token's.
      rejectedKey: k.oauth1_token_secret ? 'oauth1_token_secret' : 'oauth1_consumer_secret',
      // A signature is good for its one nonce and moment, never the secrets themselves.
      sendsSecret: false,
      httpRequest: {
        async authorize(request: OutgoingRequest) {
          request.headers.set('authorization', oauth1Header(request, signer, now()));
        },
      },
    };
  },
});
