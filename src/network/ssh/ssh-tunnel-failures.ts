import {
  ConnectorError,
  SourceUnreachableError,
  type ConnectorAuthError,
  systemErrorCode,
} from '../../errors/index.js';
import { SYSTEM } from '../failures/index.js';
import { bracketed } from '../target.js';
import { hostKeyMismatch, type HostKeyCheck, type HostKeyRule } from './ssh-host-key.js';
import type { LoginRecord } from './ssh-login.js';
import { loginRefused, type LoginTerms } from './ssh-login-refusal.js';

/**
 * What goes wrong with a tunnel, in the sftp source's terms, naming the `ssh_tunnel_*` key (or the
 * destination's key) to fix.
 */

/** Where the bastion forwards to, and the configuration key that names it (default `host`, with `port`). */
export interface TunnelDestination {
  host: string;
  port: number;
  key?: string;
}

/** What a failed bastion login is explained with. */
export interface BastionFailure {
  description: string;
  terms: LoginTerms;
  record: LoginRecord;
  hostKeyRule: HostKeyRule;
  hostKey: HostKeyCheck;
  timeoutSeconds: number;
}

/** The bastion's refusals: a host key that does not match, a refused login, no answer, no connection. */
export function bastionError(error: Error & { level?: string; code?: unknown }, f: BastionFailure): ConnectorAuthError {
  const target = f.description;
  if (f.hostKey.refused()) return hostKeyMismatch(f.hostKeyRule, f.hostKey.presented(), target, error);
  if (error.level === 'client-authentication') return loginRefused(target, f.record, f.terms, error);
  if (error.level === 'client-timeout') {
    return new SourceUnreachableError(`${target} failed: no SSH answer from the bastion within ${f.timeoutSeconds}s`, {
      code: 'timeout',
      key: 'ssh_tunnel_host',
      hint: "check 'ssh_tunnel_host' and 'ssh_tunnel_port' and that no firewall drops the connection, or raise 'timeout_seconds'",
      cause: error,
    });
  }
  const code = typeof error.code === 'string' ? error.code : '';
  const system = SYSTEM[code];
  return new SourceUnreachableError(
    `${target} failed: ${system ? `the bastion: ${system}` : 'the SSH connection to the bastion failed'}`,
    {
      code: system ? systemErrorCode(code) : 'ssh_tunnel_failed',
      key: 'ssh_tunnel_host',
      hint: "check 'ssh_tunnel_host' and 'ssh_tunnel_port', and that the bastion's SSH server accepts connections there",
      cause: error,
    },
  );
}

/** The bastion closed the connection before the login was done: not an SSH server, or one that refuses us early. */
export function bastionClosedDuringLogin(description: string): SourceUnreachableError {
  return new SourceUnreachableError(`${description} failed: the bastion closed the connection during login`, {
    code: 'ssh_tunnel_closed',
    key: 'ssh_tunnel_host',
    hint: "check that 'ssh_tunnel_host' and 'ssh_tunnel_port' point at an SSH server",
  });
}

/** The bastion refused to open the channel: forwarding forbidden, or the source unreachable from it. */
export function forwardRefused(
  error: Error & { reason?: unknown },
  description: string,
  destination: TunnelDestination,
): SourceUnreachableError {
  // RFC 4254 §5.1 reason codes: 1 administratively prohibited, 2 connect failed.
  const prohibited = error.reason === 1 || /prohibited/i.test(error.message);
  const reason = prohibited
    ? 'forwarding is not allowed for this user'
    : /Connection refused/i.test(error.message)
      ? 'connection refused'
      : 'the channel could not be opened';
  return new SourceUnreachableError(
    `${description} failed: the bastion could not connect to ${bracketed(destination.host)}:${destination.port} (${reason})`,
    {
      code: prohibited ? 'ssh_tunnel_forwarding_refused' : 'ssh_tunnel_destination_unreachable',
      key: prohibited ? 'ssh_tunnel_user' : (destination.key ?? 'host'),
      hint: prohibited
        ? "ask the bastion's administrator to allow TCP forwarding (AllowTcpForwarding) for 'ssh_tunnel_user'"
        : destination.key
          ? `check '${destination.key}' as the bastion sees it (names resolve on the bastion)`
          : "check 'host' and 'port' as the bastion sees them (names resolve on the bastion)",
      cause: error,
    },
  );
}

/** Asked of a tunnel after its close(): a closed tunnel does not reopen. */
export function tunnelClosed(description: string): ConnectorError {
  return new ConnectorError(`${description}: the tunnel is closed (the source's close() ran)`, {
    code: 'ssh_tunnel_already_closed',
    hint: "use a source only until its close(): a closed source's tunnel does not reopen",
  });
}
