import { z } from 'zod';
import { keys } from '../../config/index.js';
import { defineAuthMethod } from '../auth-method.js';
import { staticHeaderCredential } from './static-header-credential.js';

/** A pre-issued token sent as `Authorization: Bearer <token>` (RFC 6750). */
export default defineAuthMethod({
  name: 'bearer',
  summary: 'Bearer token: a pre-issued token in the Authorization header',
  keys: z.object({
    token: keys
      .text()
      .refine((v) => !/^bearer\s/i.test(v), { message: 'must be the token alone, without the word "Bearer"' }),
  }),
  create({ token }) {
    return staticHeaderCredential({
      method: 'bearer',
      description: 'bearer token',
      rejectedKey: 'token',
      headers: { authorization: `Bearer ${token}` },
    });
  },
});
