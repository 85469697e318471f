import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { start, type S3rverPeer } from '../peers/s3rver.js';
import { jsonOut, scaffold, scratch, useLocalConfiguration, writeConfiguration } from './support.js';

/**
 * Issue 24, point 6: an S3-compatible server's own access key ids were refused (16–128 characters,
 * as AWS issues them), MinIO's default `minioadmin` among them, though the docs name MinIO. With
 * `endpoint` set they are taken; without it (AWS itself) the AWS form is still checked offline.
 * The server here is s3rver, with SigV4 checked in front, holding MinIO's default credentials and
 * the template's own sample files: the template's configuration.local.json, its endpoint aside.
 */

const BUCKET = 'example-exports';
let peer: S3rverPeer;
let work: Awaited<ReturnType<typeof scratch>>;
beforeAll(async () => {
  [peer, work] = await Promise.all([
    start({ buckets: [BUCKET], credentials: { accessKeyId: 'minioadmin', secretAccessKey: 'minioadmin' } }),
    scratch('s3-compatible'),
  ]);
});
afterAll(async () => {
  await peer?.stop();
  await work?.remove();
});

describe("an S3-compatible server's own key id", () => {
  it('minioadmin with endpoint: validate, probe and debug work, and the sample files land', async () => {
    const dir = await scaffold(work.root, 'minio', 'file-storage');
    const samples = join(dir, 'sample-data', 'exports');
    await peer.putMany(
      BUCKET,
      await Promise.all(
        (await readdir(samples)).map(
          async (name) => [`exports/${name}`, await readFile(join(samples, name), 'utf8')] as [string, string],
        ),
      ),
    );
    await useLocalConfiguration(dir, { endpoint: peer.endpoint });
    for (const command of ['validate', 'probe', 'debug']) {
      const run = await cli([command, dir]);
      expect(run.code, `${command}: ${run.stderr}`).toBe(0);
    }
    const debug = await cli(['debug', dir, '--json']);
    expect(jsonOut(debug)).toMatchObject({ ok: true, rows_by_table: {} });
    const reset = await cli(['reset', dir, '--yes']);
    expect(reset.code).toBe(0);
    const again = await cli(['debug', dir, '--json']);
    expect(jsonOut(again)).toMatchObject({
      ok: true,
      counts: { upserts: 5, checkpoints: 2 },
      rows_by_table: { rows: 5 },
    });
  });

  it('without endpoint (AWS itself) the same id is exit 2 naming aws_access_key_id, before any request', async () => {
    const dir = await scaffold(work.root, 'aws', 'file-storage');
    const { endpoint: _endpoint, ...aws } = await useLocalConfiguration(dir);
    await writeConfiguration(dir, aws);
    const before = peer.requests.length;
    const run = await cli(['validate', dir, '--json']);
    expect(run.code).toBe(2);
    expect(jsonOut(run)).toMatchObject({ code: 'malformed_key', key: 'aws_access_key_id' });
    expect(run.stderr).toContain("an S3-compatible server's own ids are taken when 'endpoint' names it");
    expect(peer.requests.length).toBe(before);
  });

  it('an id that would break the SigV4 Credential field is refused even with endpoint', async () => {
    const dir = await scaffold(work.root, 'slash', 'file-storage');
    await useLocalConfiguration(dir, { endpoint: peer.endpoint, aws_access_key_id: 'team/minio' });
    const run = await cli(['validate', dir, '--json']);
    expect(run.code).toBe(2);
    expect(jsonOut(run)).toMatchObject({ code: 'malformed_key', key: 'aws_access_key_id' });
  });
});
