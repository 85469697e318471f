import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfigurationText } from '../../src/config/index.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { cli } from '../helpers/cli.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const EXAMPLE = join(root, 'configuration.example.json');

let emulator: RunningEmulator;
let work: string;
beforeAll(async () => {
  emulator = await startEmulator();
  work = await mkdtemp(join(tmpdir(), 'connector-auth-example-'));
});
afterAll(async () => {
  await emulator?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('configuration.example.json, the one example a user copies', () => {
  it('is a flat configuration of strings carrying the emulator demo credentials', async () => {
    const configuration = parseConfigurationText(await readFile(EXAMPLE, 'utf8'), EXAMPLE);
    expect(configuration).toMatchObject({
      auth_method: 'basic',
      username: emulator.credentials.apiKey,
      password: emulator.credentials.apiSecret,
    });
    expect(new URL(configuration.base_url!).port).toBe('8080');
  });

  it('passes validate and runs debug with the pipeline-metadata template against the emulator; the template ships it as configuration.local.json', async () => {
    const project = join(work, 'pipeline-metadata');
    const init = await cli(['init', project, '--template', 'pipeline-metadata']);
    expect(init.code).toBe(0);
    expect(await readFile(join(project, 'configuration.local.json'), 'utf8')).toBe(await readFile(EXAMPLE, 'utf8'));
    expect(await readFile(join(project, 'README.md'), 'utf8')).toContain('connector-auth emulator --port 8080');
    await copyFile(EXAMPLE, join(project, 'configuration.json'));

    const validate = await cli(['validate', project]);
    expect(validate.stdout + validate.stderr).not.toMatch(/error/i);
    expect(validate.code).toBe(0);

    // The example names port 8080, which a test cannot count on having: the same file, this emulator's port.
    const example = JSON.parse(await readFile(EXAMPLE, 'utf8')) as Record<string, string>;
    await writeFile(
      join(project, 'configuration.json'),
      JSON.stringify({ ...example, base_url: emulator.pipelineUrl }),
    );
    const debug = await cli(['debug', project]);
    expect(debug.stderr).toMatch(/probe succeeded/);
    expect(debug.code).toBe(0);
  });

  it('is what the README points to and what the package ships', async () => {
    expect(await readFile(join(root, 'README.md'), 'utf8')).toContain('configuration.example.json');
    const manifest = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { files: string[] };
    expect(manifest.files).toContain('configuration.example.json');
  });
});
