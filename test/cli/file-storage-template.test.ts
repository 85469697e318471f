import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, exists, initTemplate, leakForms, readTree } from '../helpers/cli.js';
import { start, type S3rverPeer } from '../peers/s3rver.js';
import { start as startSts } from '../peers/sts.js';

/**
 * Through the built CLI (`npm test` builds first), as a user runs it: `init --template file-storage`,
 * the placeholder configuration validated, then the connector pointed at a real S3 API (s3rver, with
 * Signature Version 4 checked in front of it: test/peers/s3rver.ts) and synced by `debug`; a second
 * debug reads only the file added since, and a file it cannot parse stops the sync before its key is
 * saved.
 */

const ACCESS_KEY_ID = 'AKIAFILESTORAGETEMPLATE1';
const SECRET = 'wJalrXUtn/T3mplate+K7MDENG?bPxRf&EXAMPLE=KEY';
const WRONG_SECRET = 'Wr0ng/T3mplate+secret?&AKIAxx=yy';
const BUCKET = 'exports';
/** Rows of the file added before the second sync: about 250 kB. */
const BIG = 5000;

let peer: S3rverPeer;
let root: string;

beforeAll(async () => {
  [peer, root] = await Promise.all([
    start({ buckets: [BUCKET], credentials: { accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET } }),
    mkdtemp(join(tmpdir(), 'connector-auth-file-storage-template-')),
  ]);
  await peer.putMany(BUCKET, [
    // CRLF, a byte order mark, quoted commas, an escaped quote, a line break inside a field, a blank line.
    [
      'daily/2024-01-01.csv',
      '\uFEFFid,name,note\r\n1,Ada,"likes ""maths"", a lot"\r\n2,Brian,"two\r\nlines"\r\n\r\n3,Chloé,\r\n',
    ],
    ['daily/2024-01-02.csv', 'id,name,note\n4,Dan,plain\n5,Eve,"x,y"'],
    // Not CSV, and not under the prefix: neither is read.
    ['daily/readme.txt', 'not a csv'],
    ['elsewhere/2024-01-01.csv', 'id,name,note\n9,Zed,outside\n'],
  ]);
});

afterAll(async () => {
  await peer?.stop();
  await rm(root, { recursive: true, force: true });
});

const project = (name: string, overrides?: Record<string, string>) =>
  initTemplate(root, name, 'file-storage', overrides);

const bucket = (secret = SECRET) => ({
  aws_access_key_id: ACCESS_KEY_ID,
  aws_secret_access_key: secret,
  bucket: BUCKET,
  prefix: 'daily/',
  endpoint: peer.endpoint,
});

async function warehouse(dir: string, sql: string): Promise<unknown[][]> {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const db = await DuckDBInstance.create(join(dir, 'files', 'warehouse.db'));
  const connection = await db.connect();
  try {
    return (await connection.runAndReadAll(sql)).getRowsJS();
  } finally {
    connection.closeSync();
    db.closeSync();
  }
}

const state = async (dir: string) => JSON.parse(await readFile(join(dir, 'files', 'state.json'), 'utf8')) as unknown;

describe('templates/file-storage', () => {
  it('init writes the template; validate refuses its placeholders, then passes once they are set (no network)', async () => {
    const dir = await project('fresh');
    const placeholder = await cli(['validate', dir, '--json']);
    expect(placeholder.code).toBe(2);
    expect(JSON.parse(placeholder.stdout)).toMatchObject({
      ok: false,
      code: 'placeholder_value',
      key: 'aws_access_key_id',
    });
    const set = await project('set', { aws_access_key_id: ACCESS_KEY_ID, aws_secret_access_key: SECRET });
    const run = await cli(['validate', set, '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      ok: true,
      auth_method: 'aws_access_key',
      source: 's3',
      secret_keys: ['aws_secret_access_key'],
      unknown_keys: [],
    });
  });

  it('debug syncs every CSV under prefix, one checkpoint a file; the next debug reads only the new file; a bad file stops before its key is saved', async () => {
    const dir = await project('sync', bucket());
    const first = await cli(['debug', dir]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/Upserts\s+\|\s+5\b/);
    expect(first.stdout).toMatch(/Checkpoints\s+\|\s+2\b/);
    expect(await state(dir)).toEqual({ bucket: BUCKET, prefix: 'daily/', last_key: 'daily/2024-01-02.csv' });
    expect(
      await warehouse(dir, 'select _file, _record, id, name, note from tester.rows order by _file, _record'),
    ).toEqual([
      ['daily/2024-01-01.csv', 1n, '1', 'Ada', 'likes "maths", a lot'],
      ['daily/2024-01-01.csv', 2n, '2', 'Brian', 'two\r\nlines'],
      ['daily/2024-01-01.csv', 3n, '3', 'Chloé', ''],
      ['daily/2024-01-02.csv', 1n, '4', 'Dan', 'plain'],
      ['daily/2024-01-02.csv', 2n, '5', 'Eve', 'x,y'],
    ]);

    // Large enough to arrive in several chunks: records and multi-byte characters split across them.
    const big = [
      'id,name,note',
      ...Array.from({ length: BIG }, (_, i) => `${i},Fay ${i},"row ${i}\nwith ""quotes"", commas and é"`),
    ].join('\n');
    await peer.put(BUCKET, 'daily/2024-01-03.csv', big);
    const second = await cli(['debug', dir]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(new RegExp(`Upserts\\s+\\|\\s+${BIG}\\b`));
    expect(second.stdout).toMatch(/Checkpoints\s+\|\s+1\b/);
    expect(await state(dir)).toEqual({ bucket: BUCKET, prefix: 'daily/', last_key: 'daily/2024-01-03.csv' });
    expect(await warehouse(dir, 'select _file, count(*) from tester.rows group by _file order by _file')).toEqual([
      ['daily/2024-01-01.csv', 3n],
      ['daily/2024-01-02.csv', 2n],
      ['daily/2024-01-03.csv', BigInt(BIG)],
    ]);
    expect(
      await warehouse(
        dir,
        `select count(*), max(_record) from tester.rows where _file = 'daily/2024-01-03.csv' and note = 'row ' || id || chr(10) || 'with "quotes", commas and é' and name = 'Fay ' || id and _record = 1 + id::int`,
      ),
    ).toEqual([[BigInt(BIG), BigInt(BIG)]]);

    // A record with a field too many: exit 1 naming the file and line; the saved key stays before it.
    await peer.put(BUCKET, 'daily/2024-01-04.csv', 'id,name,note\n8,Hal,ok\n9,Ida,one,too many\n');
    const broken = await cli(['debug', dir]);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain('daily/2024-01-04.csv: Invalid Record Length: expect 3, got 4 on line 3');
    expect(await state(dir)).toEqual({ bucket: BUCKET, prefix: 'daily/', last_key: 'daily/2024-01-03.csv' });

    const output =
      [first, second, broken].map((r) => r.stdout + r.stderr).join('\n') + (await readTree(join(dir, 'files')));
    for (const form of leakForms(SECRET)) expect(output).not.toContain(form);
  });

  it("aws_web_identity: debug reads the bucket with the role's session from the token file; no AWS key configured, no token or session secret written anywhere", async () => {
    const issuer = 'https://token.actions.example.com';
    const role = 'arn:aws:iam::123456789012:role/exports-sync';
    const { publicKey, privateKey } = await generateKeyPair('ES256');
    const sts = await startSts({
      roles: [{ arn: role, webIdentity: { issuer, audience: 'sts.amazonaws.com', key: publicKey } }],
      onIssued: (c) => peer.acceptTemporary(c),
    });
    try {
      const token = await new SignJWT({})
        .setProtectedHeader({ alg: 'ES256' })
        .setIssuer(issuer)
        .setAudience('sts.amazonaws.com')
        .setSubject('repo:acme/exports:ref:refs/heads/main')
        .setExpirationTime('1h')
        .sign(privateKey);
      await writeFile(join(root, 'web-identity-token'), token);
      const dir = await initTemplate(
        root,
        'web-identity',
        'file-storage',
        {
          auth_method: 'aws_web_identity',
          aws_role_arn: role,
          web_identity_token_file: join(root, 'web-identity-token'),
          aws_sts_endpoint: sts.endpoint,
          bucket: BUCKET,
          prefix: 'daily/2024-01-02',
          endpoint: peer.endpoint,
          table: 'rows',
        },
        { replaceConfiguration: true },
      );
      const run = await cli(['debug', dir]);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/Upserts\s+\|\s+2\b/);
      expect(sts.requests.map((r) => [r.action, r.status])).toEqual([['AssumeRoleWithWebIdentity', 200]]);
      const output = run.stdout + run.stderr + (await readTree(join(dir, 'files')));
      const [session] = sts.issued;
      for (const form of [
        ...leakForms(token),
        ...leakForms(session!.secretAccessKey),
        ...leakForms(session!.sessionToken),
      ])
        expect(output).not.toContain(form);
    } finally {
      await sts.stop();
    }
  });

  it('a wrong secret: exit 3 before update(), naming the key, the secret nowhere, nothing written', async () => {
    const dir = await project('wrong', bucket(WRONG_SECRET));
    const run = await cli(['debug', dir]);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain("check 'aws_secret_access_key'");
    // One line: not the AWS SDK's eight-line notice about its future releases (Node < 22 only).
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    for (const form of [...leakForms(WRONG_SECRET), ...leakForms(SECRET)])
      expect(run.stdout + run.stderr).not.toContain(form);
    expect(await exists(join(dir, 'files'))).toBe(false);
  });
});
