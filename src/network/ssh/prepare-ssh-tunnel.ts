import { z } from 'zod';
import { keys } from '../../config/index.js';
import { ConfigurationError, importOptionalPackage } from '../../errors/index.js';
import type { Logger } from '../../log/index.js';
import type { SecretRegistry } from '../../secrets/index.js';
import { bracketed } from '../target.js';
import { checkHostKeyRule, fingerprintList, type HostKeyRule } from './ssh-host-key.js';
import { sshLogin, type SshLoginSecret } from './ssh-login.js';
import type { LoginTerms } from './ssh-login-refusal.js';
import { readSshPrivateKey } from './ssh-private-key.js';
import type { TunnelDestination } from './ssh-tunnel-failures.js';
import { SshTunnel } from './ssh-tunnel.js';

/**
 * The tunnel a configuration asks for (`ssh_tunnel_*`). The bastion is held to the same rules as
 * the sftp source's server, through the same code (ssh-host-key.ts, ssh-private-key.ts): its host
 * key is checked against `ssh_tunnel_host_key_fingerprint` before the key is used (a missing
 * fingerprint is exit 2 unless `ssh_tunnel_skip_host_key_check=true`, warned on every run), the
 * login is the one configured secret — `ssh_tunnel_private_key`, or `ssh_tunnel_password` for a
 * bastion that takes passwords (through PAM's keyboard-interactive too) — through the same login
 * code (ssh-login.ts), and errors name the `ssh_tunnel_*` key to fix. A key is parsed (ssh2
 * imported) here, before any connection; the bastion is reached by the tunnel's first `open()`.
 */

export const sshTunnelKeys = z.object({
  ssh_tunnel_host: keys.optionalText(),
  ssh_tunnel_port: keys.integer({ min: 1, max: 65535, default: 22 }),
  ssh_tunnel_user: keys.optionalText(),
  ssh_tunnel_private_key: keys.optionalText(),
  ssh_tunnel_private_key_passphrase: keys.optionalText(),
  ssh_tunnel_password: keys.optionalText(),
  ssh_tunnel_host_key_fingerprint: fingerprintList(),
  ssh_tunnel_skip_host_key_check: keys.boolean(false),
});
export type SshTunnelKeys = z.output<typeof sshTunnelKeys>;

export interface SshTunnelContext {
  timeoutSeconds: number;
  log: Pick<Logger, 'warning' | 'info' | 'debug'>;
  secrets: Pick<SecretRegistry, 'register'>;
}

/**
 * The tunnel a configuration asks for, not yet open, or undefined without `ssh_tunnel_host`.
 * Everything that can be wrong without the network is refused here, naming the key: a missing
 * user, key or fingerprint, a key that does not parse.
 */
export async function prepareSshTunnel(
  k: SshTunnelKeys,
  destination: TunnelDestination,
  context: SshTunnelContext,
): Promise<SshTunnel | undefined> {
  if (!k.ssh_tunnel_host) return undefined;
  const bastion = { host: k.ssh_tunnel_host.trim(), port: k.ssh_tunnel_port };
  const user = checkTunnelLogin(k);
  const via = `ssh://${encodeURIComponent(user)}@${bracketed(bastion.host)}:${bastion.port}`;
  const hostKeyRule = bastionHostKeyRule(k, bastion, via, context);
  const secret = await tunnelSecret(k, context);
  return new SshTunnel({
    bastion,
    via,
    user,
    destination,
    hostKeyRule,
    login: sshLogin(secret, user),
    terms: tunnelLoginTerms(user, secret.kind),
    ssh2: (await importOptionalPackage('ssh2', 'ssh_tunnel_host (an SSH tunnel)', () => import('ssh2'))).default,
    timeoutSeconds: context.timeoutSeconds,
    log: context.log,
  });
}

/** The user to log in as, and exactly one secret to log in with; returns the user. */
function checkTunnelLogin(k: SshTunnelKeys): string {
  if (!k.ssh_tunnel_user)
    throw new ConfigurationError(
      `invalid configuration for the SSH tunnel: key 'ssh_tunnel_user' is missing (ssh_tunnel_host is set)`,
      {
        code: 'missing_key',
        key: 'ssh_tunnel_user',
        hint: "set 'ssh_tunnel_user', or remove 'ssh_tunnel_host' to connect directly",
      },
    );
  // One secret, as a connector has one credential: with both, which one logged in would depend on
  // the order the bastion offers its methods in.
  if (k.ssh_tunnel_private_key && k.ssh_tunnel_password)
    throw new ConfigurationError(
      "invalid configuration for the SSH tunnel: both 'ssh_tunnel_private_key' and 'ssh_tunnel_password' are set",
      {
        code: 'ssh_tunnel_two_secrets',
        key: 'ssh_tunnel_password',
        hint: "keep the one the bastion takes for 'ssh_tunnel_user' and remove the other: a connector logs in with one secret",
      },
    );
  if (!k.ssh_tunnel_private_key && !k.ssh_tunnel_password)
    throw new ConfigurationError(
      `invalid configuration for the SSH tunnel: key 'ssh_tunnel_private_key' is missing (ssh_tunnel_host is set)`,
      {
        code: 'missing_key',
        key: 'ssh_tunnel_private_key',
        hint: "set 'ssh_tunnel_private_key' (or 'ssh_tunnel_password' for a bastion that takes passwords), or remove 'ssh_tunnel_host' to connect directly",
      },
    );
  return k.ssh_tunnel_user;
}

/** How the bastion's host key is checked, the rule itself checked now (a missing fingerprint is exit 2). */
function bastionHostKeyRule(
  k: SshTunnelKeys,
  bastion: { host: string; port: number },
  via: string,
  context: SshTunnelContext,
): HostKeyRule {
  const hostKeyRule: HostKeyRule = {
    peer: 'bastion',
    fingerprintKey: 'ssh_tunnel_host_key_fingerprint',
    skipKey: 'ssh_tunnel_skip_host_key_check',
    expected: k.ssh_tunnel_host_key_fingerprint,
    skip: k.ssh_tunnel_skip_host_key_check,
  };
  checkHostKeyRule(
    hostKeyRule,
    {
      host: bastion.host,
      port: bastion.port,
      target: `the bastion ${via}`,
      risk: 'read the tunnelled traffic that TLS does not protect',
    },
    context.log,
  );
  return hostKeyRule;
}

/** The key, parsed (and its decrypted form registered) now; or the password, already registered with the configuration. */
async function tunnelSecret(k: SshTunnelKeys, context: SshTunnelContext): Promise<SshLoginSecret> {
  const password = k.ssh_tunnel_password;
  if (password) return { kind: 'password', password: () => password };
  const key = await readSshPrivateKey(k.ssh_tunnel_private_key!, k.ssh_tunnel_private_key_passphrase, {
    keyKey: 'ssh_tunnel_private_key',
    passphraseKey: 'ssh_tunnel_private_key_passphrase',
    secrets: context.secrets,
  });
  return { kind: 'key', key: () => key };
}

/** A refused bastion login in the tunnel's keys: which secret key is set chooses the method. */
function tunnelLoginTerms(user: string, kind: SshLoginSecret['kind']): LoginTerms {
  const secretKey = kind === 'password' ? 'ssh_tunnel_password' : 'ssh_tunnel_private_key';
  return {
    kind,
    peer: 'bastion',
    user,
    userKey: 'ssh_tunnel_user',
    codePrefix: 'ssh_tunnel',
    secretKey,
    methodKey: secretKey,
    useOther: (other) =>
      other === 'key'
        ? "set 'ssh_tunnel_private_key' in place of 'ssh_tunnel_password'"
        : "set 'ssh_tunnel_password' in place of 'ssh_tunnel_private_key'",
  };
}
