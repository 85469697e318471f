import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli, type CliRun } from '../helpers/cli.js';

/**
 * What the first-hour tests share: a scratch directory, and a project scaffolded by the built CLI
 * whose configuration is the template's own configuration.local.json (what a new user runs first),
 * pointed at the test's server where the file names a fixed port or host.
 */
export async function scratch(prefix: string): Promise<{ root: string; remove: () => Promise<void> }> {
  const root = await mkdtemp(join(tmpdir(), `connector-auth-${prefix}-`));
  return { root, remove: () => rm(root, { recursive: true, force: true }) };
}

export async function scaffold(root: string, name: string, template: string): Promise<string> {
  const dir = join(root, name);
  const run = await cli(['init', dir, '--template', template]);
  if (run.code !== 0) throw new Error(`init --template ${template} failed (${run.code}): ${run.stderr}`);
  return dir;
}

/** configuration.json := the template's configuration.local.json with `changes` over it (the "edit" step). */
export async function useLocalConfiguration(
  dir: string,
  changes: Record<string, string> = {},
): Promise<Record<string, string>> {
  const local = JSON.parse(await readFile(join(dir, 'configuration.local.json'), 'utf8')) as Record<string, string>;
  const configuration = { ...local, ...changes };
  await writeConfiguration(dir, configuration);
  return configuration;
}

export async function writeConfiguration(dir: string, configuration: Record<string, string>): Promise<void> {
  // writeFile keeps the 0600 init gave the file.
  await writeFile(join(dir, 'configuration.json'), `${JSON.stringify(configuration, null, 2)}\n`);
}

/** The JSON document a --json run printed on stdout. */
export function jsonOut(run: CliRun): Record<string, unknown> {
  try {
    return JSON.parse(run.stdout) as Record<string, unknown>;
  } catch {
    throw new Error(`not one JSON document on stdout (exit ${run.code}):\n${run.stdout}\n${run.stderr}`);
  }
}
