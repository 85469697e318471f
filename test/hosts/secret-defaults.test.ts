import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, leakForms } from '../helpers/cli.js';
import { airbyte, configuredCatalog, jsonFile } from './airbyte/support.js';
import { bearerProject, type BearerProject } from './bearer-project.js';
import { connectorClient, startServe } from './fivetran/support.js';

/**
 * Issue 42: a secret key the configuration leaves out takes its schema's default, and that default
 * is a credential like a configured value. A connector that logs it, from its top-level code or in
 * update(), must print it redacted on every host: debug's stderr, serve's stdout, airbyte read's LOG
 * lines. `signing_secret` is secret by its name, `hmac` by the connector's secretKeys.
 */

const TOKEN = 'tok_secret_defaults_7d1e2a';
const SIGNING_DEFAULT = 'sgn_default_value_4c9b0f1e';
const HMAC_DEFAULT = 'hmac_default_value_81f3aa';

const CONNECTOR = `import { defineConnector, z } from 'connector-auth';

export default defineConnector({
  source: 'rest',
  secretKeys: ['hmac'],
  configuration: z.object({
    signing_secret: z.string().default('${SIGNING_DEFAULT}'),
    hmac: z.string().default('${HMAC_DEFAULT}'),
  }),
  schema: () => [{ table: 'items', primary_key: ['id'] }],
  async update({ configuration, op, log }) {
    log.info('signing with ' + configuration.signing_secret + ' and ' + configuration.hmac);
    console.log('console: ' + configuration.signing_secret + ' ' + configuration.hmac);
    console.error({ signing: configuration.signing_secret });
    await op.upsert('items', { id: 1 });
    await op.checkpoint({ done: true });
  },
});
`;

let setup: BearerProject;
let project: string;

beforeAll(async () => {
  setup = await bearerProject('secret-defaults', TOKEN, CONNECTOR);
  project = setup.project;
});

afterAll(() => setup?.stop());

/** No secret key of the connector is in the configuration: both defaults apply. */
const configuration = () => setup.configuration(TOKEN);

function expectNoDefault(texts: Record<string, string>): void {
  for (const [where, text] of Object.entries(texts))
    for (const form of [...leakForms(SIGNING_DEFAULT), ...leakForms(HMAC_DEFAULT)])
      expect(text.includes(form), `${where} holds a default secret`).toBe(false);
}

describe("a secret key's default, logged by the connector", () => {
  it('debug: redacted on stderr and stdout, under its key', async () => {
    await writeFile(join(project, 'configuration.json'), JSON.stringify(configuration()));
    const run = await cli(['debug', project]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('signing with <redacted:signing_secret> and <redacted:hmac>');
    expectNoDefault({ stdout: run.stdout, stderr: run.stderr });
  });

  it('serve: redacted in what the server printed, in an Update and in the one after it', async () => {
    const serve = (setup.serve = await startServe(project));
    const client = connectorClient(serve.port);
    for (let round = 0; round < 2; round++) {
      const update = await client.update({ configuration: configuration() });
      expect(update.error).toBeUndefined();
      expectNoDefault({ 'Update replies': JSON.stringify(update.messages) });
    }
    await serve.until(/signing with <redacted:signing_secret> and <redacted:hmac>[^\n]*\n[^]*signing with <redacted/);
    client.close();
    expectNoDefault({ stdout: serve.stdout(), stderr: serve.stderr() });
  });

  it('airbyte read: redacted in the LOG messages', async () => {
    const run = await airbyte([
      'read',
      project,
      '--config',
      await jsonFile(setup.root, 'config.json', configuration()),
      '--catalog',
      await jsonFile(setup.root, 'catalog.json', configuredCatalog([{ name: 'items', sync_mode: 'full_refresh' }])),
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.stringify(run.of('LOG'))).toContain('signing with <redacted:signing_secret> and <redacted:hmac>');
    expectNoDefault({ stdout: run.stdout, stderr: run.stderr });
  });
});
