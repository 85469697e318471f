import { z } from 'zod';
import { keys } from '../../config/index.js';
import { defineAuthMethod } from '../auth-method.js';
import { notForHttp } from './not-for-http.js';
import type { PasswordCredential } from './password-credential.js';

/**
 * A password that a database source checks itself (PostgreSQL's SCRAM, for instance): nothing is
 * added to HTTP requests, the source reads the password through `PasswordCredential.password()` when
 * it logs in. The user name is the source's own key (`user`), so it only colours the description.
 * `password` is declared secret in the key catalogue, so it is registered the moment the
 * configuration is read.
 */
export default defineAuthMethod({
  name: 'password',
  summary: 'a password the source checks itself (databases)',
  keys: z.object({ password: keys.text() }),
  create({ password }, { raw }): PasswordCredential {
    const user = raw.user?.trim();
    return {
      method: 'password',
      description: user ? `password auth as '${user}'` : 'password auth',
      rejectedKey: 'password',
      sendsSecret: true,
      password: () => password,
      authorize: notForHttp(
        'password',
        'database sources such as postgres',
        "for an HTTP API with a user name and password, set 'auth_method' to basic",
      ),
    };
  },
});
