import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SftpSource } from '../../src/sources/index.js';
import { rejection } from '../helpers/rejection.js';
import { connectSource } from '../helpers/source-session.js';
import { sftpConfiguration, start, type SshdPeer } from '../peers/sshd.js';

/**
 * The sftp source's stat() against a real OpenSSH server (test/peers/sshd.ts). ssh2-sftp-client's
 * stat reports a missing path by name ('ENOENT'), not by SFTP status number as its other calls do:
 * it is still the connector's error naming the path, not a failed SSH connection.
 */

let peer: SshdPeer;
let upload: string;

beforeAll(async () => {
  peer = await start();
  upload = join(peer.dataDir, 'upload');
  await mkdir(upload);
  await writeFile(join(upload, 'orders.csv'), 'id,amount\n1,10\n');
  // Owned by root, mode 0700: the test user may not look inside.
  await mkdir(join(peer.dataDir, 'private'), { mode: 0o700 });
  await writeFile(join(peer.dataDir, 'private', 'secret.csv'), 'x');
});

afterAll(async () => {
  await peer?.stop();
});

describe('sftp source, stat()', () => {
  it('a missing path: exit 1 sftp_no_such_file naming it; the session stays usable', async () => {
    const { auth } = await connectSource<SftpSource>(sftpConfiguration(peer, { probe_path: upload }), 'sftp');
    try {
      const missing = join(upload, 'nope.csv');
      const error = await rejection(auth.source.stat(missing));
      expect([error.exitCode, error.code]).toEqual([1, 'sftp_no_such_file']);
      expect(error.message).toBe(
        `sftp://cauth-sftp@127.0.0.1:${peer.port}: SFTP stat ${missing}: no such file or directory`,
      );
      // Not a lost connection: the next call on the same session works.
      expect(await auth.source.stat(join(upload, 'orders.csv'))).toMatchObject({ type: 'file', size: 15 });
    } finally {
      await auth.close();
    }
  });

  it('a path the user may not reach: exit 1 sftp_permission_denied', async () => {
    const { auth } = await connectSource<SftpSource>(sftpConfiguration(peer, { probe_path: upload }), 'sftp');
    try {
      const error = await rejection(auth.source.stat(join(peer.dataDir, 'private', 'secret.csv')));
      expect([error.exitCode, error.code]).toEqual([1, 'sftp_permission_denied']);
    } finally {
      await auth.close();
    }
  });
});
