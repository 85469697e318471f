import { z } from 'zod';
import { keys } from '../../config/index.js';
import { bracketed, fingerprintList, sshTunnelKeys } from '../../network/index.js';

/**
 * The sftp source's keys and what they make: the server to reach, the directory the probe lists and
 * the host key rule. Host key checking is on unless the configuration turns it off by name
 * (`ssh_skip_host_key_check`, the SSH counterpart of `tls_skip_verify`); the rule itself is
 * decided by the network layer's `checkHostKeyRule`, once the host and port are known.
 */

export const sftpKeys = z.object({
  host: keys.text(),
  port: keys.integer({ min: 1, max: 65535, default: 22 }),
  username: keys.text(),
  host_key_fingerprint: fingerprintList(),
  ssh_skip_host_key_check: keys.boolean(false),
  probe_path: keys.textWithDefault('.'),
  ...sshTunnelKeys.shape,
});
export type SftpKeys = z.output<typeof sftpKeys>;

export interface SftpEndpoint {
  host: string;
  port: number;
  username: string;
}

/** "sftp://alice@files.example.com:22": what messages and the probe show. */
export function describeEndpoint(endpoint: SftpEndpoint): string {
  return `sftp://${encodeURIComponent(endpoint.username)}@${bracketed(endpoint.host)}:${endpoint.port}`;
}
