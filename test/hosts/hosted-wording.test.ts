import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, initTemplate } from '../helpers/cli.js';
import { closedPort } from '../peers/http-api.js';
import { airbyte, jsonFile } from './airbyte/support.js';
import { connectorClient, startServe, type ServeProcess } from './fivetran/support.js';

/**
 * Under a host the configuration is the platform's: Fivetran's setup form, the Airbyte
 * connection's settings. A hint that says "in configuration.json" sends the user to a file they do
 * not have, so each host names its own place: the form field (serve), the connection's settings
 * (airbyte); the local commands keep configuration.json. One case of each hint that names the place:
 * a missing key, a misspelt one, a template placeholder left in.
 */

let root: string;
let project: string;
let base: string;
let serve: ServeProcess;
let client: ReturnType<typeof connectorClient>;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'connector-auth-wording-'));
  project = await initTemplate(root, 'p', 'rest-api');
  // Every case fails before any request: nothing needs to listen there.
  base = `http://127.0.0.1:${await closedPort()}`;
  serve = await startServe(project);
  client = connectorClient(serve.port);
});
afterAll(async () => {
  client?.close();
  await serve?.stop();
  await rm(root, { recursive: true, force: true });
});

const cases = () => ({
  missing: { auth_method: 'bearer', base_url: base },
  misspelt: { auth_method: 'bearer', token: 'T0ken-wording-1', base_url: base, item_path: 'items' },
  placeholder: { auth_method: 'bearer', token: '<YOUR_API_TOKEN>', base_url: base },
});

describe('hints name where the user sets the key', () => {
  it('serve (Fivetran): the form field', async () => {
    const { missing, misspelt, placeholder } = cases();
    const answers = await Promise.all([client.test(missing), client.test(misspelt), client.test(placeholder)]);
    expect(answers.map((a) => a.failure)).toEqual([
      expect.stringContaining("set the form field 'token'"),
      expect.stringContaining("rename the form field 'item_path' to 'items_path'"),
      expect.stringContaining("replace the value of the form field 'token' with the real one"),
    ]);
    for (const answer of answers) expect(answer.failure).not.toContain('configuration.json');
  });

  it("airbyte: the connection's settings", async () => {
    const { missing, misspelt, placeholder } = cases();
    const messages = [];
    for (const [name, config] of Object.entries({ missing, misspelt, placeholder })) {
      const run = await airbyte(['check', project, '--config', await jsonFile(project, `${name}.json`, config)]);
      messages.push(run.of('CONNECTION_STATUS')[0]!.connectionStatus.message as string);
    }
    expect(messages).toEqual([
      expect.stringContaining("set 'token' in the connection's settings"),
      expect.stringContaining("rename the setting 'item_path' to 'items_path' in the connection's settings"),
      expect.stringContaining("replace the value of 'token' in the connection's settings with the real one"),
    ]);
    for (const message of messages) expect(message).not.toContain('configuration.json');
  });

  it('the local commands: configuration.json', async () => {
    const lines = [];
    for (const config of Object.values(cases())) {
      await writeFile(join(project, 'configuration.json'), JSON.stringify(config));
      const run = await cli(['validate', project]);
      expect(run.code).toBe(2);
      lines.push(run.stderr);
    }
    expect(lines).toEqual([
      expect.stringContaining("set 'token' in configuration.json"),
      expect.stringContaining("rename 'item_path' to 'items_path' in configuration.json"),
      expect.stringContaining("replace the value of 'token' in configuration.json with the real one"),
    ]);
  });
});
