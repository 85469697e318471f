import { z } from 'zod';
import { keys } from '../../config/index.js';
import { defineAuthMethod } from '../auth-method.js';
import type { CredentialWith } from '../auth-method.js';

/**
 * A password that a database source checks itself (PostgreSQL's SCRAM, for instance): nothing is
 * added to HTTP requests, the source reads the password through its `password` capability when it
 * logs in. The user name is the source's own key (`user`), so it only colours the description.
 * `password` is declared secret in the key catalogue, so it is registered the moment the
 * configuration is read.
 */
export default defineAuthMethod({
  name: 'password',
  summary: 'a password the source checks itself (databases)',
  keys: z.object({ password: keys.text() }),
  create({ password }, { source }): CredentialWith<'password'> {
    const user = source.user?.trim();
    return {
      method: 'password',
      description: user ? `password auth as '${user}'` : 'password auth',
      rejectedKey: 'password',
      sendsSecret: true,
      password: { read: () => password },
    };
  },
});
