import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initTemplate, leakForms, offerMethods } from '../../helpers/cli.js';
import { sftpConfiguration, start, type SshdPeer } from '../../peers/sshd.js';
import { airbyte, configuredCatalog, expectNoSecretOutsideControl, jsonFile, savedState } from './support.js';

/**
 * `connector-auth airbyte` on the file-storage template's SFTP variant — made exactly as its
 * README says (source 'sftp', a `directory` key, the listing replaced) — against a real OpenSSH
 * server (test/peers/sshd.ts). Every stdout line is checked against the protocol schema.
 */

const WRONG = 'Wr0ng-Sftp/+pw?&y';
let peer: SshdPeer;
let root: string;
let upload: string;

beforeAll(async () => {
  [peer, root] = await Promise.all([start(), mkdtemp(join(tmpdir(), 'connector-auth-airbyte-sftp-'))]);
  upload = join(peer.dataDir, 'airbyte-upload');
  await mkdir(upload, { recursive: true });
  await writeFile(join(upload, '2024-01-01.csv'), 'id,name\n1,Ada\n2,"Brian, Jr."\n');
  await writeFile(join(upload, '2024-01-02.csv'), 'id,name\n3,Chloé\n');
  await writeFile(join(upload, 'notes.txt'), 'not a csv');
});

afterAll(async () => {
  await peer?.stop();
  await rm(root, { recursive: true, force: true });
});

/** The template's connector.ts changed as its README's "The same connector on SFTP" says. */
async function sftpProject(name: string): Promise<string> {
  const dir = await initTemplate(root, name, 'file-storage');
  const readme = await readFile(join(dir, 'README.md'), 'utf8');
  const body = /## The same connector on SFTP[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)![1]!;
  let source = await readFile(join(dir, 'connector.ts'), 'utf8');
  source = source.replace("source: 's3',", "source: 'sftp',");
  source = source.replace(
    'const settings = z.object({',
    "const settings = z.object({\n  directory: z.string().default('/upload'),",
  );
  source = source.replace(
    / {4}\/\/ A key saved for another bucket[\s\S]*?(?= {4}log\.info\(`synced)/,
    body.replace(/^/gm, '    ').trimEnd() + '\n',
  );
  expect(source).toContain("source: 'sftp'");
  expect(source).not.toContain('startAfter');
  await writeFile(join(dir, 'connector.ts'), source);
  await offerMethods(dir, ['password', 'ssh_key']);
  return dir;
}

describe('airbyte on the file-storage template, SFTP variant', () => {
  it('check good and wrong, discover, read; resumed, only the file added since', async () => {
    const dir = await sftpProject('sftp');
    const good = await jsonFile(dir, 'good.json', sftpConfiguration(peer, { directory: upload, table: 'rows' }));
    const check = await airbyte(['check', dir, '--config', good]);
    expect(check.of('CONNECTION_STATUS')[0]!.connectionStatus.status, check.stdout + check.stderr).toBe('SUCCEEDED');
    const bad = await airbyte([
      'check',
      dir,
      '--config',
      await jsonFile(dir, 'bad.json', sftpConfiguration(peer, { directory: upload, password: WRONG })),
    ]);
    expect(bad.code).toBe(0);
    expect(bad.of('CONNECTION_STATUS')[0]!.connectionStatus).toMatchObject({
      status: 'FAILED',
      message: expect.stringContaining("'password'"),
    });

    const discover = await airbyte(['discover', dir, '--config', good]);
    expect(discover.of('CATALOG')[0]!.catalog.streams).toEqual([
      expect.objectContaining({ name: 'rows', source_defined_primary_key: [['_file'], ['_record']] }),
    ]);

    const catalog = await jsonFile(dir, 'catalog.json', configuredCatalog([{ name: 'rows' }]));
    const first = await airbyte(['read', dir, '--config', good, '--catalog', catalog]);
    expect(first.code, first.stderr).toBe(0);
    expect(
      first.of('RECORD').map((r) => [r.record.data._file.split('/').at(-1), r.record.data._record, r.record.data.name]),
    ).toEqual([
      ['2024-01-01.csv', 1, 'Ada'],
      ['2024-01-01.csv', 2, 'Brian, Jr.'],
      ['2024-01-02.csv', 1, 'Chloé'],
    ]);
    expect(first.of('STATE').map((s) => s.state.sourceStats.recordCount)).toEqual([2, 1]);

    await writeFile(join(upload, '2024-01-03.csv'), 'id,name\n4,Dan\n');
    const resumed = await airbyte([
      'read',
      dir,
      '--config',
      good,
      '--catalog',
      catalog,
      '--state',
      await jsonFile(dir, 'state.json', savedState(first)),
    ]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.of('RECORD').map((r) => r.record.data.name)).toEqual(['Dan']);
    for (const run of [check, bad, discover, first, resumed])
      expectNoSecretOutsideControl(run, [...leakForms(peer.password), ...leakForms(WRONG)]);
  });
});
