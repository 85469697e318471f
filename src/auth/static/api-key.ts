import { z } from 'zod';
import { carriageProblem, keys } from '../../config/index.js';
import { defineAuthMethod } from '../auth-method.js';
import { staticHeaderCredential } from './static-header-credential.js';

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/; // an RFC 9110 token

/** A static key in a header (name and prefix configurable) or in a query parameter. */
export default defineAuthMethod({
  name: 'api_key',
  summary: 'API key: a static key in a request header (default X-API-Key) or a query parameter',
  keys: z
    .object({
      api_key: keys.text(),
      api_key_header: keys
        .textWithDefault('X-API-Key')
        .refine((v) => HEADER_NAME.test(v), { message: 'must be a valid HTTP header name' }),
      api_key_prefix: keys.optionalText(),
      api_key_location: keys.oneOf(['header', 'query'], 'header'),
      api_key_query_param: keys.optionalText(),
    })
    .refine((k) => k.api_key_location !== 'query' || k.api_key_query_param !== undefined, {
      path: ['api_key_query_param'],
      message: 'is required when api_key_location is query',
    })
    // In a header the key goes as written (a query string encodes it): what a header cannot carry is
    // named here, before a request fails on it far from the key.
    .superRefine((k, ctx) => {
      if (k.api_key_location !== 'header') return;
      for (const key of ['api_key', 'api_key_prefix'] as const) {
        const problem = k[key] === undefined ? undefined : carriageProblem(k[key], 'header');
        if (problem)
          ctx.addIssue({ code: 'custom', path: [key], message: `holds ${problem}, which an HTTP header cannot carry` });
      }
    }),
  create(k) {
    if (k.api_key_location === 'query') {
      const param = k.api_key_query_param!;
      return {
        method: 'api_key',
        description: `API key in query parameter '${param}'`,
        rejectedKey: 'api_key',
        sendsSecret: true,
        httpRequest: {
          async authorize(request) {
            request.url.searchParams.set(param, k.api_key);
          },
        },
      };
    }
    const value = k.api_key_prefix ? `${k.api_key_prefix} ${k.api_key}` : k.api_key;
    return staticHeaderCredential({
      method: 'api_key',
      description: `API key in header '${k.api_key_header}'`,
      rejectedKey: 'api_key',
      headers: { [k.api_key_header]: value },
    });
  },
});
