import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { BIN, cli } from '../helpers/cli.js';
import { jsonOut, scaffold, scratch, useLocalConfiguration } from './support.js';

/**
 * Issue 24, point 10: `--json` output mixed `elapsed_ms` and `authMethod`. Every field name a
 * command writes is snake_case now, whatever the command; what is not a field name of ours (a table
 * name in `rows_by_table`, the service's own records under `items`) is left as it is.
 */

let emulator: RunningEmulator;
let work: Awaited<ReturnType<typeof scratch>>;
let dir: string;
beforeAll(async () => {
  [emulator, work] = await Promise.all([startEmulator(), scratch('json-fields')]);
  dir = await scaffold(work.root, 'project', 'rest-api');
  await useLocalConfiguration(dir, { base_url: emulator.exampleApiUrl });
});
afterAll(async () => {
  await emulator?.stop();
  await work?.remove();
});

const NOT_OURS = new Set(['rows_by_table', 'items', 'webhooks', 'webhook', 'tables']);

function fieldNames(value: unknown, path = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => fieldNames(item, `${path}[${i}]`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) => [
    `${path}.${key}`,
    ...(NOT_OURS.has(key) ? [] : fieldNames(inner, `${path}.${key}`)),
  ]);
}

function expectSnakeCase(document: Record<string, unknown>, command: string): void {
  const wrong = fieldNames(document).filter((path) => !/^[a-z][a-z0-9_]*$/.test(path.slice(path.lastIndexOf('.') + 1)));
  expect(wrong, command).toEqual([]);
}

describe('--json field names', () => {
  it('are snake_case in every command, errors included', async () => {
    const pipelineEnv = {
      CONNECTOR_AUTH_BASE_URL: emulator.url,
      CONNECTOR_AUTH_API_KEY: emulator.credentials.apiKey,
      CONNECTOR_AUTH_API_SECRET: emulator.credentials.apiSecret,
    };
    const runs: Array<[string, string[], NodeJS.ProcessEnv?]> = [
      ['init', ['init', `${work.root}/other`, '--json']],
      ['validate', ['validate', dir, '--json']],
      ['probe', ['probe', dir, '--json']],
      ['debug', ['debug', dir, '--json']],
      ['doctor', ['doctor', dir, '--json']],
      ['reset', ['reset', dir, '--yes', '--json']],
      ['version', ['version', '--json']],
      ['pipeline', ['pipeline', 'groups', '--json', '--limit', '2'], pipelineEnv],
      ['an error', ['debug', `${work.root}/missing`, '--json']],
    ];
    for (const [name, args, env] of runs) {
      const run = await cli(args, env ? { env } : {});
      expectSnakeCase(jsonOut(run), name);
    }
    // The fields that were camelCase before.
    expect(jsonOut(await cli(['validate', dir, '--json']))).toMatchObject({
      auth_method: 'bearer',
      secret_keys: ['token'],
      unknown_keys: [],
    });
    expect(jsonOut(await cli(['probe', dir, '--json']))).toMatchObject({
      elapsed_ms: expect.any(Number),
      outcome: 'HTTP 200',
    });
    expect(jsonOut(await cli(['debug', dir, '--json']))).toMatchObject({
      counts: { schema_changes: expect.any(Number) },
      probe: { elapsed_ms: expect.any(Number) },
    });
  });

  it('emulator --json: its one document too', async () => {
    const child = spawn(process.execPath, [BIN, 'emulator', '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const line = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes('\n')) resolve(out.slice(0, out.indexOf('\n')));
        });
        child.on('exit', (code) => reject(new Error(`emulator exited ${code}`)));
      });
      const document = JSON.parse(line) as Record<string, unknown>;
      expectSnakeCase(document, 'emulator');
      expect(document).toMatchObject({
        example_api_base_url: expect.stringMatching(/\/example-api\/v1$/),
        credentials: { example_api_token: expect.any(String) },
      });
    } finally {
      child.kill('SIGTERM');
    }
  });
});
