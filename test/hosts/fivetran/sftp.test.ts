import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initTemplate, leakForms } from '../../helpers/cli.js';
import { sftpConfiguration, start, type SshdPeer } from '../../peers/sshd.js';
import { connectorClient, plain, startServe, type ServeProcess } from './support.js';

/**
 * `connector-auth serve` on the file-storage template turned into its sftp variant exactly as the
 * template's README says (source 'sftp', a `directory` key, the listing loop replaced), against a
 * real OpenSSH server (test/peers/sshd.ts): Test, Schema, an Update of CSV files resumed after the
 * last file, a wrong password.
 */

const WRONG = 'Wr0ng-Sftp/+pw?&y';

let peer: SshdPeer;
let root: string;
let directory: string;
let server: ServeProcess;
let client: ReturnType<typeof connectorClient>;

/** The README's sftp variant, applied to the scaffolded connector.ts; each step must find its place. */
async function sftpVariant(project: string): Promise<void> {
  const file = join(project, 'connector.ts');
  const readme = await readFile(join(project, 'README.md'), 'utf8');
  const loop = /replace the body of `update\(\)` up to\nthe log line with:\n\n```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  if (!loop) throw new Error("the template README's sftp loop was not found");
  let text = await readFile(file, 'utf8');
  const step = (from: RegExp, to: string) => {
    if (!from.test(text)) throw new Error(`the template's connector.ts has no ${from}`);
    text = text.replace(from, to);
  };
  step(/source: 's3',/, "source: 'sftp',");
  step(/ {2}auth: \[[^\]]*\],/, "  auth: ['password', 'ssh_key'],");
  step(
    /const settings = z\.object\(\{\n/,
    "const settings = z.object({\n  directory: z.string().default('/upload'),\n",
  );
  step(
    /(async update\(\{ configuration, state, source, op, log \}\) \{\n)[\s\S]*?(\n\s*log\.info\(`synced)/,
    `$1${loop.replace(/\n$/, '')}$2`,
  );
  await writeFile(file, text);
}

beforeAll(async () => {
  [peer, root] = await Promise.all([start(), mkdtemp(join(tmpdir(), 'connector-auth-serve-sftp-'))]);
  directory = join(peer.dataDir, 'exports');
  await mkdir(directory, { recursive: true });
  await writeFile(join(directory, '2024-01-01.csv'), 'id,name,note\n1,Ada,"likes ""maths"", a lot"\n2,Brian,plain\n');
  await writeFile(join(directory, '2024-01-02.csv'), 'id,name,note\n3,Chloé,"two\nlines"\n');
  await writeFile(join(directory, 'readme.txt'), 'not a csv');
  const project = await initTemplate(root, 'files', 'file-storage');
  await sftpVariant(project);
  server = await startServe(project);
  client = connectorClient(server.port);
});

afterAll(async () => {
  client?.close();
  await server?.stop();
  await peer?.stop();
  await rm(root, { recursive: true, force: true });
});

const configuration = (extra: Record<string, string> = {}) =>
  sftpConfiguration(peer, { directory, table: 'rows', probe_path: directory, ...extra });

describe('serve: the file-storage template, sftp variant', () => {
  it('ConfigurationForm: password or ssh_key, each with its secret; the host key fingerprint; no TLS keys for sftp', async () => {
    const form = (await client.configurationForm()) as { fields: Record<string, unknown>[] };
    const byName = Object.fromEntries(form.fields.map((f) => [f.name as string, f]));
    const methods = (
      byName.auth_method as { descriptive_dropdown_fields: { descriptive_dropdown_field: { value: string }[] } }
    ).descriptive_dropdown_fields.descriptive_dropdown_field;
    expect(methods.map((m) => m.value)).toEqual(['password', 'ssh_key']);
    expect(
      (byName.auth_method_ssh_key as { conditional_fields: { fields: unknown[] } }).conditional_fields.fields,
    ).toEqual([
      expect.objectContaining({ name: 'private_key', text_field: 'Password', required: true }),
      expect.objectContaining({ name: 'private_key_passphrase', text_field: 'Password', required: false }),
    ]);
    expect(byName.host_key_fingerprint).toMatchObject({ text_field: 'PlainText' });
    expect(byName.directory).toMatchObject({ default_value: '/upload' });
    expect(byName).not.toHaveProperty('tls_ca_certificate');
  });

  it('Test: success; a wrong password fails naming password', async () => {
    expect(await client.test(configuration())).toMatchObject({ success: true });
    const wrong = await client.test(configuration({ password: WRONG }));
    expect(wrong.failure).toMatch(/'password'/);
  });

  it('Schema: the rows table keyed by file and record', async () => {
    const schema = (await client.schema(configuration())) as { without_schema: { tables: unknown[] } };
    expect(schema.without_schema.tables).toEqual([
      {
        name: 'rows',
        columns: [
          { name: '_file', type: 'UNSPECIFIED', primary_key: true },
          { name: '_record', type: 'UNSPECIFIED', primary_key: true },
        ],
      },
    ]);
  });

  it('Update: one record a CSV record (_record a LONG, the rest text), a checkpoint a file; resumed, only the new file', async () => {
    const first = await client.update({ configuration: configuration() });
    expect(first.error).toBeUndefined();
    expect(first.records.map(plain)).toEqual([
      {
        _file: { string: `${directory}/2024-01-01.csv` },
        _record: { long: '1' },
        id: { string: '1' },
        name: { string: 'Ada' },
        note: { string: 'likes "maths", a lot' },
      },
      {
        _file: { string: `${directory}/2024-01-01.csv` },
        _record: { long: '2' },
        id: { string: '2' },
        name: { string: 'Brian' },
        note: { string: 'plain' },
      },
      {
        _file: { string: `${directory}/2024-01-02.csv` },
        _record: { long: '1' },
        id: { string: '3' },
        name: { string: 'Chloé' },
        note: { string: 'two\nlines' },
      },
    ]);
    expect(first.checkpoints).toEqual([
      { directory, last_key: `${directory}/2024-01-01.csv` },
      { directory, last_key: `${directory}/2024-01-02.csv` },
    ]);

    await writeFile(join(directory, '2024-01-03.csv'), 'id,name,note\n4,Dan,new\n');
    const second = await client.update({
      configuration: configuration(),
      state_json: JSON.stringify(first.checkpoints.at(-1)),
    });
    expect(second.error).toBeUndefined();
    expect(second.records.map((r) => plain(r).name)).toEqual([{ string: 'Dan' }]);
  });

  it('Update with a wrong password: UNAUTHENTICATED naming password; nothing printed holds a password', async () => {
    const result = await client.update({ configuration: configuration({ password: WRONG }) });
    expect(result.error?.code).toBe(16);
    expect(result.error?.details).toMatch(/'password'/);
    const printed = server.stdout() + server.stderr() + (result.error?.details ?? '');
    for (const form of [...leakForms(peer.password), ...leakForms(WRONG)]) expect(printed).not.toContain(form);
  });
});
