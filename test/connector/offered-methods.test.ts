import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { airbyte, jsonFile } from '../hosts/airbyte/support.js';
import { connectorClient, startServe } from '../hosts/fivetran/support.js';

/**
 * `defineConnector({ auth: [...] })`: a connector names the methods it offers. The Fivetran form and
 * the Airbyte spec offer only those, and a configuration that names another is exit 2 naming
 * `auth_method` with the offered ones listed, at validate as at every command.
 */

let root: string;
let project: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'connector-auth-offered-'));
  project = join(root, 'two-methods');
  await mkdir(project);
  await writeFile(
    join(project, 'connector.ts'),
    `import { defineConnector } from 'connector-auth';
export default defineConnector({
  source: 'rest',
  auth: ['bearer', 'oauth2_refresh_token'],
  async update() {},
});
`,
  );
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const basic = { auth_method: 'basic', username: 'u', password: 'pw-not-offered', base_url: 'https://api.example.com' };

describe('a connector that names its auth methods', () => {
  it('validate: a method it does not offer is exit 2 naming auth_method and listing the offered ones', async () => {
    await writeFile(join(project, 'configuration.json'), JSON.stringify(basic));
    const run = await cli(['validate', project]);
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe(
      "error [method_not_offered]: invalid configuration: this connector does not offer auth_method 'basic'; it offers bearer, oauth2_refresh_token — set 'auth_method' to one of bearer, oauth2_refresh_token",
    );
  });

  it('airbyte spec offers only those methods; check refuses another as a configuration error', async () => {
    const spec = await airbyte(['spec', project]);
    const text = JSON.stringify(spec.of('SPEC')[0]);
    const offered = [...text.matchAll(/"const":"([a-z0-9_]+)"/g)].map((m) => m[1]);
    expect(new Set(offered)).toEqual(new Set(['bearer', 'oauth2_refresh_token']));
    const check = await airbyte(['check', project, '--config', await jsonFile(root, 'basic.json', basic)]);
    expect(check.of('CONNECTION_STATUS')[0]?.connectionStatus).toMatchObject({
      status: 'FAILED',
      message: expect.stringContaining("does not offer auth_method 'basic'"),
    });
  });

  it("the Fivetran form's auth_method dropdown lists only those methods, each with its group of keys", async () => {
    const server = await startServe(project);
    try {
      const client = connectorClient(server.port);
      const form = (await client.configurationForm()) as { fields: Record<string, any>[] };
      client.close();
      const dropdown = form.fields.find((f) => f.name === 'auth_method')!;
      const values = dropdown.descriptive_dropdown_fields.descriptive_dropdown_field.map(
        (v: { value: string }) => v.value,
      );
      expect(values).toEqual(['bearer', 'oauth2_refresh_token']);
      const groups = form.fields.filter((f) => String(f.name).startsWith('auth_method_')).map((f) => f.name);
      expect(groups).toEqual(['auth_method_bearer', 'auth_method_oauth2_refresh_token']);
    } finally {
      await server.stop();
    }
  });
});
