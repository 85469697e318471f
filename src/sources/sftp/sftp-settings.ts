import { z } from 'zod';
import { keys } from '../../config/index.js';

/**
 * The sftp source's keys and what they make: the server to reach, the directory the probe lists and
 * the host key rule. Host key checking is on unless the configuration turns it off by name
 * (`ssh_skip_host_key_check`, the SSH counterpart of `tls_skip_verify`); the rule itself is
 * decided in host-key.ts, once the host and port are known.
 */

/** `SHA256:` and 43 characters of unpadded base64, as `ssh-keygen -l` prints a fingerprint. */
const SHA256_FINGERPRINT = /^SHA256:[A-Za-z0-9+/]{43}$/;

export const sftpKeys = z.object({
  host: keys.text(),
  port: keys.integer({ min: 1, max: 65535, default: 22 }),
  username: keys.text(),
  host_key_fingerprint: fingerprintList(),
  ssh_skip_host_key_check: keys.boolean(false),
  probe_path: keys.textWithDefault('.'),
});
export type SftpKeys = z.output<typeof sftpKeys>;

export interface SftpEndpoint {
  host: string;
  port: number;
  username: string;
}

/** "sftp://alice@files.example.com:22": what messages and the probe show. */
export function describeEndpoint(endpoint: SftpEndpoint): string {
  const host = endpoint.host.includes(':') && !endpoint.host.startsWith('[') ? `[${endpoint.host}]` : endpoint.host;
  return `sftp://${encodeURIComponent(endpoint.username)}@${host}:${endpoint.port}`;
}

/**
 * One fingerprint, or several separated by commas (a server's old and new key while it rotates).
 * Absent or empty gives an empty list: whether that is allowed depends on ssh_skip_host_key_check.
 */
export function fingerprintList() {
  return z
    .string()
    .optional()
    .transform((v, ctx): string[] => {
      if (v === undefined || v.trim() === '') return [];
      const items = v.split(',').map((item) => item.trim().replace(/=+$/, ''));
      for (const item of items) {
        if (SHA256_FINGERPRINT.test(item)) continue;
        const md5 = /^(MD5:)?([0-9a-f]{2}:){15}[0-9a-f]{2}$/i.test(item);
        ctx.issues.push({
          code: 'custom',
          input: v,
          message: md5
            ? 'is an MD5 fingerprint; give the SHA256 one (`ssh-keygen -l -E sha256 -f KEY.pub` prints it)'
            : 'must be a host key fingerprint such as SHA256:uNiVztksCsDhcc0u9e8BujQXVUpKZIDTMczCvj3tD2s (as `ssh-keygen -l` prints it)',
        });
        return z.NEVER;
      }
      return items;
    });
}
