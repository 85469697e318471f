import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, exists } from '../helpers/cli.js';
import type { TableDefinition } from '../../src/connector/index.js';
import { lineProblems } from '../hosts/airbyte/support.js';

/**
 * What Airbyte's own tooling expects of a connector, scaffolded by init (issue 40, item 10):
 * `acceptance-test-config.yml` naming the image the Dockerfile builds (`<name>:dev`) and, beside it,
 * `integration_tests/` with a configured catalog of the template's own tables (their sync modes and
 * cursors as discover gives them) and an invalid configuration (the template's placeholders), with
 * `secrets/` kept out of git and of the image for the working configuration the tests read.
 */

const TEMPLATES = ['rest-api', 'database', 'file-storage', 'pipeline-metadata'];
let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'connector-auth-cat-scaffold-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const LOADER = fileURLToPath(new URL('../../dist/project/index.js', import.meta.url));

/**
 * The tables the template's `schema()` declares with its own keys' defaults, read in a Node process of
 * its own through the built package, as the CLI loads a connector (the loader's hooks are Node's, not
 * the test runner's).
 */
async function declaredTables(dir: string): Promise<TableDefinition[]> {
  const script = `
    const { loadConnector } = await import(${JSON.stringify(LOADER)});
    const { connector } = await loadConnector(process.argv[1]);
    const settings = connector.configuration ? connector.configuration.parse({}) : {};
    process.stdout.write(JSON.stringify(await connector.schema(settings)));`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script, dir]);
  return JSON.parse(stdout) as TableDefinition[];
}

interface ConfiguredStream {
  stream: { name: string; supported_sync_modes: string[]; default_cursor_field?: string[] };
  sync_mode: string;
  cursor_field?: string[];
  primary_key?: string[][];
}

describe.each(TEMPLATES)('init --template %s', (template) => {
  let dir: string;
  beforeAll(async () => {
    dir = join(root, `cat-${template}`);
    const init = await cli(['init', dir, '--template', template, '--registry']);
    expect(init.code, init.stderr).toBe(0);
  });

  it('acceptance-test-config.yml tests the image the Dockerfile builds, with files that exist', async () => {
    const config = parseYaml(await readFile(join(dir, 'acceptance-test-config.yml'), 'utf8')) as {
      connector_image: string;
      acceptance_tests: Record<string, { tests?: Record<string, string>[]; bypass_reason?: string }>;
    };
    expect(config.connector_image).toBe(`cat-${template}:dev`);
    expect(Object.keys(config.acceptance_tests)).toEqual([
      'spec',
      'connection',
      'discovery',
      'basic_read',
      'full_refresh',
      'incremental',
    ]);
    const paths = Object.values(config.acceptance_tests).flatMap((suite) =>
      (suite.tests ?? []).flatMap((test) => [test.config_path, test.configured_catalog_path].filter(Boolean)),
    );
    // secrets/config.json is the user's working configuration; everything else init writes.
    for (const path of paths.filter((p) => p !== 'secrets/config.json'))
      expect(await exists(join(dir, path!))).toBe(true);
    for (const ignore of ['.gitignore', '.dockerignore'])
      expect(await readFile(join(dir, ignore), 'utf8')).toMatch(/^secrets\/$/m);
  });

  it("the configured catalog selects the template's tables, as discover describes them", async () => {
    const catalog = JSON.parse(await readFile(join(dir, 'integration_tests', 'configured_catalog.json'), 'utf8')) as {
      streams: ConfiguredStream[];
    };
    expect(
      lineProblems(JSON.stringify({ type: 'CATALOG', catalog: { streams: catalog.streams.map((s) => s.stream) } })),
    ).toEqual([]);
    const tables = await declaredTables(dir);
    expect(catalog.streams.map((s) => s.stream.name)).toEqual(tables.map((t) => t.table));
    for (const [i, table] of tables.entries()) {
      const configured = catalog.streams[i]!;
      expect(configured.primary_key).toEqual(table.primary_key?.map((column) => [column]));
      if (table.incremental === false) expect(configured.sync_mode).toBe('full_refresh');
      else {
        expect(configured.sync_mode).toBe('incremental');
        expect(configured.cursor_field).toEqual([table.cursor]);
        expect(configured.stream.default_cursor_field).toEqual([table.cursor]);
      }
      expect(configured.stream.supported_sync_modes).toContain(configured.sync_mode);
    }
  });

  it('the invalid configuration fails the check, naming a key to fill in', async () => {
    const check = await cli([
      'airbyte',
      'check',
      dir,
      '--config',
      join(dir, 'integration_tests', 'invalid_config.json'),
    ]);
    const status = check.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { type: string; connectionStatus?: { status: string; message: string } })
      .find((m) => m.type === 'CONNECTION_STATUS');
    expect(status?.connectionStatus?.status).toBe('FAILED');
    expect(status?.connectionStatus?.message).toMatch(/placeholder|<YOUR_/i);
  });
});
