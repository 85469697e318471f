import { ConfigurationError } from '../errors/index.js';
import type { Logger } from '../log/index.js';
import { isLoopbackHost } from './target.js';

/**
 * What every source does when a configuration weakens its transport: plain http:// off loopback is
 * refused unless `allow_plain_http` says so, and then warned on every run; TLS without verification,
 * or a connection without TLS, is warned on every run. One wording each, whichever source asks.
 */

type Warn = Pick<Logger, 'warning'>;

export interface PlainHttpUse {
  readonly url: URL;
  /** The key that holds the URL, named in the refusal. */
  readonly key: string;
  /** What would cross the network in clear: "the bearer token", "the signed URL". */
  readonly exposes: string;
  readonly allowed: boolean;
  readonly log: Warn;
}

/** Refuses plain http:// to a host off loopback unless allowed, and warns when it is. */
export function guardPlainHttp(use: PlainHttpUse): void {
  if (use.url.protocol !== 'http:' || isLoopbackHost(use.url.hostname)) return;
  const host = use.url.host;
  if (!use.allowed)
    throw new ConfigurationError(
      `refusing to send ${use.exposes} over plain http:// to ${host}: anyone on the network could read it`,
      {
        code: 'plain_http_refused',
        key: use.key,
        hint: `use https:// in '${use.key}', or set 'allow_plain_http' to "true" if you must`,
      },
    );
  use.log.warning(`sending ${use.exposes} over plain http:// to ${host} (allow_plain_http=true)`);
}

/** What turned TLS verification off, and what restores it when removing that choice does not. */
export interface UnverifiedChoice {
  /** Default `tls_skip_verify=true`; `sslmode=require` for postgres. */
  readonly setting?: string;
  readonly fix?: string;
}

/** TLS whose server certificate is not checked. */
export function warnTlsUnverified(log: Warn, target: string, exposes: string, choice: UnverifiedChoice = {}): void {
  const { setting = 'tls_skip_verify=true', fix } = choice;
  log.warning(
    `TLS verification is OFF for ${target} (${setting}): anyone on the path can pose as the server and read ${exposes}${fix ? ` (${fix})` : ''}`,
  );
}

/** A connection without TLS, chosen by `setting` (`sslmode=disable`, `mysql_tls=none`, `ftp_tls=none`). */
export function warnUnencrypted(log: Warn, target: string, exposes: string, setting: string): void {
  log.warning(`${setting}: the connection to ${target} is not encrypted; ${exposes} cross the network in clear`);
}
