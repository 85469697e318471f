import type { z } from 'zod';
import type { AuthContext, Credential } from '../auth/index.js';

/**
 * A kind of source (REST API, database, bucket, SFTP server, signed URL) knows its own keys, which
 * auth methods it accepts, how to connect with a credential and how to probe. Drivers it needs
 * (pg, mysql2, ssh2, basic-ftp, the AWS SDK) are imported inside `connect`, and `catalogue.ts` imports the file only
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

export interface SourceDefinition<
  Keys extends z.ZodType = z.ZodType,
  Client extends ConnectedSource = ConnectedSource,
> {
  readonly name: string;
  readonly summary: string;
  readonly keys: Keys;
  /** auth_method values this source can use. */
  readonly acceptsMethods: readonly string[];
  connect(keys: z.output<Keys>, credential: Credential, context: SourceContext): Promise<Client>;
}

export function defineSource<Keys extends z.ZodType, Client extends ConnectedSource>(
  source: SourceDefinition<Keys, Client>,
): SourceDefinition<Keys, Client> {
  return source;
}
