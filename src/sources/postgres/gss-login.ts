import { PassThrough, type Duplex, type Readable } from 'node:stream';
import type { Client, ClientConfig } from 'pg';
import type { Credential, GssInitiator, GssTarget } from '../../auth/index.js';
import { ConfigurationError } from '../../errors/index.js';

/**
 * PostgreSQL's GSSAPI login for pg, which has none of its own: pg's parser throws on the
 * authentication requests GSSAPI uses (AuthenticationGSS, code 7; AuthenticationGSSContinue, code 8).
 * So the bytes pg reads pass through a filter until the login is over: those two requests are taken
 * out and answered with the credential's GSS tokens (GSSResponse messages, 'p'), as libpq does,
 * and everything else (AuthenticationOk, an error) goes on to pg, which carries on as after any login.
 * The filter sits on the stream pg parses, after TLS when there is TLS, so the exchange is encrypted
 * as libpq's is. It hooks Connection.attachListeners, an internal of the pg version pinned in
 * package.json; the GSS tests against a real PostgreSQL fail if a new pg moves it.
 *
 * This file is the postgres source's only use of the `kerberos` capability.
 */

type PgModule = { Client: typeof Client };
type PgConnection = {
  attachListeners(stream: Duplex): void;
  emit(event: string | symbol, ...args: unknown[]): boolean;
};

const AUTHENTICATION = 0x52; // 'R'
const GSS = 7;
const GSS_CONTINUE = 8;
/** AuthenticationOk, then the password requests (cleartext, MD5, SASL) a pg_hba.conf line may make instead. */
const OK = 0;
const PASSWORD_REQUESTS = new Set([3, 5, 10]);

/** pg's Client, or one that logs in by GSSAPI when the credential has the `kerberos` capability. */
export function clientClassFor(pg: PgModule, credential: Credential, endpoint: { host: string; user: string }) {
  const kerberos = credential.kerberos;
  if (kerberos === undefined) return pg.Client;
  const target: GssTarget = { service: 'postgres', host: endpoint.host, hostKey: 'host', mechanism: 'krb5' };
  const initiator = () => kerberos.gssInitiator(target);
  return class GssClient extends pg.Client {
    constructor(config?: ClientConfig) {
      super(config);
      const connection = (this as unknown as { connection: PgConnection }).connection;
      const attach = connection.attachListeners.bind(connection);
      let idle = () => Promise.resolve();
      connection.attachListeners = (stream) => {
        const filter = gssFilter(stream, connection, initiator, endpoint.user);
        idle = filter.idle;
        attach(filter.toPg as Duplex);
      };
      // pg hears the socket close on the socket itself: a server that refuses the login sends its
      // error and closes at once, and pg must read that error (still behind a GSS step here) first.
      const emit = connection.emit.bind(connection);
      connection.emit = (event, ...args) => {
        if (event !== 'end') return emit(event, ...args);
        void idle().then(() => emit(event, ...args));
        return true;
      };
    }
  };
}

function gssFilter(
  stream: Duplex,
  connection: PgConnection,
  begin: () => Promise<GssInitiator>,
  user: string,
): { toPg: Readable; idle: () => Promise<void> } {
  const toPg = new PassThrough();
  let pending: Buffer = Buffer.alloc(0);
  let loggedIn = false;
  let initiator: Promise<GssInitiator> | undefined;
  let queue = Promise.resolve();

  const respond = (token: string) => {
    const bytes = Buffer.from(token, 'base64');
    const header = Buffer.alloc(5);
    header.write('p', 0);
    header.writeInt32BE(4 + bytes.length, 1);
    stream.write(Buffer.concat([header, bytes]));
  };
  const answer = async (code: number, data: Buffer) => {
    const gss = await (initiator ??= begin());
    if (code === GSS_CONTINUE && gss.complete) return;
    const token = await gss.step(code === GSS ? '' : data.toString('base64'));
    if (token) respond(token);
  };
  const consume = async (chunk: Buffer) => {
    if (loggedIn) return void toPg.write(chunk);
    pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    while (!loggedIn && pending.length >= 5) {
      const end = 1 + pending.readInt32BE(1);
      if (pending.length < end) return;
      const message = pending.subarray(0, end);
      pending = pending.subarray(end);
      const code = message[0] === AUTHENTICATION && message.length >= 9 ? message.readInt32BE(5) : -1;
      if (code === GSS || code === GSS_CONTINUE) {
        await answer(code, message.subarray(9));
        continue;
      }
      if (PASSWORD_REQUESTS.has(code)) throw passwordAsked(user);
      // AuthenticationOk or an error: pg's from here on.
      if (code === OK || message[0] !== AUTHENTICATION) loggedIn = true;
      toPg.write(message);
    }
    if (loggedIn && pending.length) toPg.write(pending);
  };
  stream.on('data', (chunk: Buffer) => {
    queue = queue
      .then(() => consume(chunk))
      .catch((error: unknown) => {
        loggedIn = true;
        connection.emit('error', error);
      });
  });
  stream.on('end', () => void queue.then(() => toPg.end()));
  return { toPg, idle: () => queue };
}

function passwordAsked(user: string): ConfigurationError {
  return new ConfigurationError(
    `the server asks a password of user '${user}', not a Kerberos ticket (its pg_hba.conf line for this host is not gss)`,
    {
      code: 'postgres_gss_not_offered',
      key: 'auth_method',
      hint: "set 'auth_method' to password, or ask the database administrator for a gss line in pg_hba.conf",
    },
  );
}
