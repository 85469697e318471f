import type pg from 'pg';
import { createCa, issueServer, type Authority } from './certificates.js';
import { start, type PostgresOptions, type PostgresPeer } from './postgres.js';

/**
 * The PostgreSQL the database tests share: TLS with a certificate for 127.0.0.1 from a CA of the
 * test's own, `hostssl` lines only (a connection without TLS is refused), as a production server is
 * set up. `superuser()` opens a pg client as the superuser over verified TLS, for a test that
 * prepares tables, roles or passwords before the source is tried.
 */
export interface TlsPostgresPeer extends PostgresPeer {
  /** The CA that issued the server's certificate: a configuration's `tls_ca_certificate`. */
  ca: Authority;
  /** The superuser's password as the test last knew it (start's `password`, unless the test changed it). */
  superuser(password?: string): Promise<pg.Client>;
}

export interface TlsPostgresOptions extends Omit<PostgresOptions, 'ssl' | 'hostsslOnly'> {
  /** The CA of client certificates the server accepts (with `certificateUsers`). */
  clientCaPem?: string;
  /** The CA to issue the server's certificate from (default: a new one), when other peers share it. */
  ca?: Authority;
}

export async function startTlsPostgres(options: TlsPostgresOptions): Promise<TlsPostgresPeer> {
  const { clientCaPem, ca = createCa(), ...rest } = options;
  const server = issueServer(ca, { hosts: ['127.0.0.1'] });
  const peer = await start({
    ...rest,
    ssl: {
      certificatePem: server.certificatePem,
      privateKeyPem: server.privateKeyPem,
      ...(clientCaPem ? { clientCaPem } : {}),
    },
    hostsslOnly: true,
  });
  const superuser = async (password = options.password): Promise<pg.Client> => {
    // pg is the driver the postgres source uses; loaded here only when a test asks for a client.
    const { default: postgres } = await import('pg');
    const client = new postgres.Client({
      host: peer.host,
      port: peer.port,
      user: peer.user,
      database: options.database,
      password,
      ssl: { ca: ca.certificatePem },
    });
    await client.connect();
    return client;
  };
  return Object.assign(peer, { ca, superuser });
}
