import { z } from 'zod';
import { keys } from '../../config/index.js';
import { basicCredentialForms } from '../../secrets/index.js';
import { defineAuthMethod } from '../auth-method.js';
import { staticHeaderCredential } from './static-header-credential.js';

/** HTTP Basic (RFC 7617): `Authorization: Basic base64(username:password)` on every request. */
export default defineAuthMethod({
  name: 'basic',
  summary: 'HTTP Basic: username and password, base64-encoded in the Authorization header',
  keys: z.object({
    username: keys.text().refine((v) => !v.includes(':'), { message: 'must not contain ":" (RFC 7617)' }),
    password: keys.text(),
  }),
  create({ username, password }, { secrets }) {
    // The header value is base64 of "user:password": a form of the password no raw match would catch.
    secrets.registerForms('password', basicCredentialForms(username, password));
    const encoded = Buffer.from(`${username}:${password}`, 'utf8').toString('base64');
    return staticHeaderCredential({
      method: 'basic',
      description: `basic auth as '${username}'`,
      rejectedKey: 'password',
      headers: { authorization: `Basic ${encoded}` },
    });
  },
});
