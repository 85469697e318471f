import { z } from 'zod';
import { keys } from '../../config/index.js';
import type { HeaderReader } from '../../network/index.js';
import { defineAuthMethod, type CredentialWith } from '../auth-method.js';
import type { OutgoingRequest } from '../capabilities.js';
import { digestAuthorization, readDigestChallenge, type DigestChallenge } from './digest-challenge.js';

/**
 * HTTP Digest (RFC 7616) with the Basic keys `username` and `password`: devices and older
 * enterprise APIs. The first request goes without credentials; the server's 401 carries the
 * challenge (a nonce), and the request is sent once more with the answer. Later requests answer the
 * same nonce at once, counting up `nc`, until the server says it is stale (or hands out a
 * `nextnonce`): then the one retry of that request answers the new nonce.
 */
export default defineAuthMethod({
  name: 'digest',
  summary: 'HTTP Digest (RFC 7616, MD5 or SHA-256): username and password, answered to the server challenge',
  keys: z.object({
    username: keys.text().refine((v) => !v.includes(':'), { message: 'must not contain ":" (RFC 7616)' }),
    password: keys.text(),
  }),
  create({ username, password }, { secrets, log }): CredentialWith<'httpRequest'> {
    secrets.register('password', password);
    let challenge: DigestChallenge | undefined;
    let nc = 0;
    const learn = (next: DigestChallenge) => {
      if (challenge?.nonce !== next.nonce) nc = 0;
      if (next.stale) log.debug(`digest auth as '${username}': the server's nonce went stale; answering its new one`);
      challenge = next;
    };
    return {
      method: 'digest',
      description: `digest auth as '${username}'`,
      rejectedKey: 'password',
      // The answer is no password, but a hash of it an eavesdropper can test guesses against.
      sendsSecret: true,
      httpRequest: {
        async authorize(request: OutgoingRequest) {
          if (!challenge) return; // the server's 401 brings the first nonce
          nc += 1;
          const uri = `${request.url.pathname}${request.url.search}`;
          const answer = digestAuthorization(challenge, { method: request.method, uri, username, password, nc });
          // H(username:realm:password) stands for the password at this realm: a secret of its own.
          secrets.registerForms('password', [answer.ha1]);
          request.headers.set('authorization', answer.header);
        },
        observeAnswer(_url: URL, headers: HeaderReader) {
          const next = readDigestChallenge(headers.get('www-authenticate'));
          if (next) return learn(next);
          const nextNonce = /nextnonce="([^"]*)"/i.exec(headers.get('authentication-info') ?? '')?.[1];
          if (challenge && nextNonce && nextNonce !== challenge.nonce)
            learn({ ...challenge, nonce: nextNonce, stale: false });
        },
        // A 401 with a Digest challenge (the first one, a stale nonce) is answered by one retry;
        // a wrong password earns a second 401, which the source reports naming `password`.
        answersChallenge: (_url: URL, headers: HeaderReader) =>
          readDigestChallenge(headers.get('www-authenticate')) !== undefined,
      },
    };
  },
});
