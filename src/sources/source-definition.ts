import type { z } from 'zod';
import type { AuthContext, CapabilityName, CredentialWith } from '../auth/index.js';

/**
 * A kind of source (REST API, database, bucket, SFTP server, signed URL) knows its own keys, what
 * it needs of a credential (capabilities, never method names), how to connect with one and how to
 * probe. Drivers it needs
 * (pg, mysql2, ssh2, basic-ftp, the AWS SDK) are imported inside `connect`, and `built-in-sources.ts` imports the file only
 * when a configuration names the source.
 */

export interface ProbeResult {
  /** What was checked, without secrets: "GET https://api.example.com/health". */
  target: string;
  /** What proved the credentials, e.g. "HTTP 200". */
  outcome: string;
  elapsedMs: number;
}

export interface ConnectedSource {
  /** One lightweight authenticated call; throws a classified error when it fails. */
  probe(): Promise<ProbeResult>;
  close(): Promise<void>;
}

export type SourceContext = AuthContext;

/** A credential with one of the capabilities `Needs` (which one, the source sees by its members). */
export type CredentialFor<Needs extends CapabilityName> = Needs extends CapabilityName ? CredentialWith<Needs> : never;

export interface SourceDefinition<
  Keys extends z.ZodType = z.ZodType,
  Client extends ConnectedSource = ConnectedSource,
  Needs extends CapabilityName = CapabilityName,
> {
  readonly name: string;
  readonly summary: string;
  readonly keys: Keys;
  /**
   * True when connect() reads the TLS keys (a private CA, a client certificate) through
   * `context.tls`: they are in no schema of the source's own, so the fields a template lists come from here.
   */
  readonly tls?: boolean;
  /**
   * What the source can work with, any one of them, in order of preference: the connector accepts
   * every auth method whose line in auth/built-in-methods.ts provides one of these, and refuses the others.
   */
  readonly needs: readonly Needs[];
  /**
   * Source keys read only when the credential brings one capability (the rest source's
   * `aws_service`, with AWS keys): a form shows them with the methods that provide it, and
   * not at all when the connector offers none of those methods.
   */
  readonly keysFor?: Partial<Record<Needs, readonly string[]>>;
  connect(keys: z.output<Keys>, credential: CredentialFor<Needs>, context: SourceContext): Promise<Client>;
}

export function defineSource<
  Keys extends z.ZodType,
  Client extends ConnectedSource,
  const Needs extends CapabilityName,
>(source: SourceDefinition<Keys, Client, Needs>): SourceDefinition<Keys, Client, Needs> {
  return source;
}
