import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, initTemplate, offerMethods } from '../helpers/cli.js';
import { expectNoLeak } from '../helpers/leak-check.js';
import { createCa, issueServer, type Authority } from '../peers/certificates.js';
import { start, type VsftpdPeer } from '../peers/vsftpd.js';

/**
 * The file-storage template on FTP, as its README says to switch it: `source: 'ftp'`, a `directory`
 * key, and the README's own listing loop in place of the S3 one (taken from the README, so the
 * documented switch is what runs). Through the built CLI against a real vsftpd with explicit FTPS:
 * a sync, a second sync that reads only the new file, and a wrong password that stops before
 * files/ is touched, with no trace of either password in stdout, stderr, files/ or the warehouse.
 */

const WRONG = 'Wr0ng-T3mplate/+ftp?&y';

let ca: Authority;
let peer: VsftpdPeer;
let root: string;

beforeAll(async () => {
  ca = createCa();
  [peer, root] = await Promise.all([
    start({ tls: 'explicit', certificate: issueServer(ca, { hosts: ['127.0.0.1'] }) }),
    mkdtemp(join(tmpdir(), 'connector-auth-file-storage-ftp-')),
  ]);
  await mkdir(join(peer.dataDir, 'upload'));
  await writeFile(join(peer.dataDir, 'upload', '2024-01-01.csv'), 'id,name\n1,Ada\n2,Brian\n');
  await writeFile(join(peer.dataDir, 'upload', 'notes.txt'), 'not a csv');
});

afterAll(async () => {
  await peer?.stop();
  await rm(root, { recursive: true, force: true });
});

/** The template's connector.ts switched to FTP exactly as templates/file-storage/README.md says. */
async function switchToFtp(dir: string): Promise<void> {
  const readme = await readFile(join(dir, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## The same connector on SFTP or FTP'));
  const loop = /```ts\n([\s\S]*?)```/.exec(section)![1]!;
  const key = /`(directory: z\.string\(\)\.default\('[^']*'\))`/.exec(section)![1]!;
  let code = await readFile(join(dir, 'connector.ts'), 'utf8');
  code = code.replace("source: 's3',", "source: 'ftp',");
  code = code.replace('const settings = z.object({', `const settings = z.object({\n  ${key},`);
  const start = code.indexOf('\n', code.indexOf('async update({ configuration, state, source, op, log }) {')) + 1;
  const end = code.indexOf('    log.info(`synced', start);
  const indented = loop.replace(/^(?=.)/gm, '    ');
  code = code.slice(0, start) + indented + code.slice(end);
  expect(code).toContain("source: 'ftp'");
  await writeFile(join(dir, 'connector.ts'), code);
  await offerMethods(dir, ['password']);
}

const configuration = (password: string) => ({
  auth_method: 'password',
  host: peer.host,
  port: String(peer.port),
  username: peer.user,
  password,
  tls_ca_certificate: ca.certificatePem,
  directory: 'upload',
});

describe('templates/file-storage on FTP (the README switch)', () => {
  it('debug syncs every CSV in the directory; the next reads only the new file; a wrong password is exit 3 and leaks nothing', async () => {
    const dir = await initTemplate(root, 'ftp', 'file-storage', configuration(peer.password), {
      replaceConfiguration: true,
    });
    await switchToFtp(dir);
    const first = await cli(['debug', dir]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/Upserts\s+\|\s+2\b/);
    expect(JSON.parse(await readFile(join(dir, 'files', 'state.json'), 'utf8'))).toEqual({
      directory: 'upload',
      last_key: 'upload/2024-01-01.csv',
    });

    await writeFile(join(peer.dataDir, 'upload', '2024-01-02.csv'), 'id,name\n3,Chloé\n');
    const second = await cli(['debug', dir]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(/Upserts\s+\|\s+1\b/);
    expect(second.stdout).toMatch(/Checkpoints\s+\|\s+1\b/);

    const wrong = await initTemplate(root, 'ftp-wrong', 'file-storage', configuration(WRONG), {
      replaceConfiguration: true,
    });
    await switchToFtp(wrong);
    const refused = await cli(['debug', wrong]);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('ftp_login_rejected');
    expect(refused.stderr).toContain("'password'");
    for (const secret of [peer.password, WRONG])
      await expectNoLeak(secret, {
        texts: {
          stdout: first.stdout + second.stdout + refused.stdout,
          stderr: first.stderr + second.stderr + refused.stderr,
        },
        files: join(dir, 'files'),
        warehouse: join(dir, 'files', 'warehouse.db'),
      });
    expect(await readFile(join(wrong, 'files', 'state.json'), 'utf8').catch(() => 'absent')).toBe('absent');
  });
});
