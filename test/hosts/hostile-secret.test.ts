import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOSTILE_SECRET, expectNoLeak } from '../helpers/leak-check.js';
import { start, type HttpApiPeer } from '../peers/http-api.js';
import { airbyte, configuredCatalog, jsonFile } from './airbyte/support.js';
import { connectorClient, startServe, type ServeProcess } from './fivetran/support.js';

/**
 * Issue 22's leak check over the production hosts' output: a connector holds a secret of its own
 * with every character an encoder treats specially (`+ / = & % " \`, quotes, `<` `>`, a tab, a
 * newline) and prints it every careless way a connector can — its log, console.log of an object
 * (util.inspect's quoting), JSON escaped twice, HTML-escaped, hex, a Buffer, Buffer's JSON — then
 * fails with it in the message. No 12-character window of it may reach anything `serve` or
 * `airbyte` printed, nor what they sent to their client.
 */

const TOKEN = 'tok_hostile_hosts_5f0c1d';

const CONNECTOR = `import { defineConnector, z } from 'connector-auth';

export default defineConnector({
  source: 'rest',
  configuration: z.object({ vendor_token: z.string(), fail: z.string().default('false') }),
  schema: () => [{ table: 'items', primary_key: ['id'] }],
  async update({ configuration, op, log }) {
    const secret = configuration.vendor_token;
    const html = secret.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
    log.info('the vendor token is ' + secret);
    log.warning(JSON.stringify(JSON.stringify({ token: secret })));
    console.log({ token: secret, nested: { again: [secret] } });
    console.log(Buffer.from(secret));
    console.error(JSON.stringify({ bytes: Buffer.from(secret) }));
    console.warn(Buffer.from(secret).toString('hex'), '<p title="' + html + '">');
    await op.upsert('items', { id: 1, name: 'one' });
    await op.checkpoint({ done: true });
    if (configuration.fail === 'true') throw new Error('the vendor refused ' + JSON.stringify(secret) + ' because ' + html);
  },
});
`;

let peer: HttpApiPeer;
let root: string;
let project: string;
let serve: ServeProcess | undefined;

beforeAll(async () => {
  [peer, root] = await Promise.all([
    start({ auth: { kind: 'bearer', token: TOKEN } }),
    mkdtemp(join(tmpdir(), 'connector-auth-hostile-')),
  ]);
  project = join(root, 'hostile');
  await mkdir(project);
  await writeFile(join(project, 'connector.ts'), CONNECTOR);
});

afterAll(async () => {
  await serve?.stop();
  await peer?.stop();
  await rm(root, { recursive: true, force: true });
});

const configuration = (fail: boolean) => ({
  auth_method: 'bearer',
  token: TOKEN,
  base_url: peer.url,
  probe_path: 'health',
  vendor_token: HOSTILE_SECRET,
  fail: String(fail),
});

describe('a secret with every special character, printed carelessly by the connector', () => {
  it('serve: nothing the server printed or sent in an Update, ended well or by the failure, holds any window of it', async () => {
    serve = await startServe(project);
    const client = connectorClient(serve.port);
    const good = await client.update({ configuration: configuration(false) });
    expect(good.error).toBeUndefined();
    expect(good.records).toHaveLength(1);
    const failed = await client.update({ configuration: configuration(true) });
    expect(failed.error?.details).toMatch(/the vendor refused .{0,4}<redacted:vendor_token>/);
    await serve.until(/the vendor token is <redacted:vendor_token>/);
    client.close();
    await expectNoLeak(HOSTILE_SECRET, {
      texts: {
        stdout: serve.stdout(),
        stderr: serve.stderr(),
        'Update replies': JSON.stringify([good.messages, failed.messages]),
        'the failure status': `${failed.error?.message} ${failed.error?.details}`,
      },
    });
  });

  it('airbyte read: no line but CONTROL may hold a secret, and there is none here: no window anywhere', async () => {
    const config = await jsonFile(root, 'config.json', configuration(false));
    const good = await airbyte([
      'read',
      project,
      '--config',
      config,
      '--catalog',
      await jsonFile(root, 'catalog.json', configuredCatalog([{ name: 'items', sync_mode: 'full_refresh' }])),
    ]);
    expect(good.code, good.stderr).toBe(0);
    expect(good.of('RECORD')).toHaveLength(1);
    const failing = await jsonFile(root, 'failing.json', configuration(true));
    const bad = await airbyte([
      'read',
      project,
      '--config',
      failing,
      '--catalog',
      await jsonFile(root, 'catalog.json', configuredCatalog([{ name: 'items', sync_mode: 'full_refresh' }])),
    ]);
    expect(bad.code).toBe(1);
    expect(JSON.stringify(bad.of('TRACE').filter((m) => m.trace.type === 'ERROR'))).toMatch(
      /the vendor refused .{0,4}<redacted:vendor_token>/,
    );
    await expectNoLeak(HOSTILE_SECRET, {
      texts: {
        'stdout (read)': good.stdout,
        'stderr (read)': good.stderr,
        'stdout (failed read)': bad.stdout,
        'stderr (failed read)': bad.stderr,
      },
    });
  });
});
