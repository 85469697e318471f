import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { ValidateFunction } from 'ajv';
import { expect } from 'vitest';
import { cli, type CliRun } from '../../helpers/cli.js';

/**
 * Runs `connector-auth airbyte …` (the built CLI) and checks EVERY line it printed on standard
 * output against the JSON Schema derived from the published protocol
 * (protocols/airbyte/airbyte-message.schema.json), twice: as published, and closed — every object
 * the protocol describes field by field refused any field it does not name, so a misspelt field
 * (`connection_status` for `connectionStatus`) fails here rather than being ignored by Airbyte.
 */

const SCHEMA = JSON.parse(
  readFileSync(new URL('../../../protocols/airbyte/airbyte-message.schema.json', import.meta.url), 'utf8'),
) as Record<string, unknown>;

function validator(schema: unknown): ValidateFunction {
  const { Ajv } = createRequire(import.meta.url)('ajv') as typeof import('ajv');
  const ajv = new Ajv({ allErrors: true });
  ajv.addKeyword('x-protocol-version');
  ajv.addFormat('uri', (value: string) => URL.canParse(value));
  return ajv.compile(schema as object);
}

/** The same schema with `additionalProperties: false` on every object that lists its properties. */
export function closed(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(closed);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node))
    out[key] =
      key === 'properties'
        ? Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, closed(v)]))
        : closed(value);
  if ('properties' in out && out.type === 'object') out.additionalProperties = false;
  return out;
}

export const published = validator(SCHEMA);
export const strict = validator(closed(SCHEMA));

export interface Message {
  type: string;
  [field: string]: any;
}

export interface AirbyteRun extends CliRun {
  messages: Message[];
  of(type: string): Message[];
}

/** The protocol problems of one stdout line, or [] when it is a valid AirbyteMessage. */
export function lineProblems(line: string): string[] {
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return [`not JSON: ${line.slice(0, 200)}`];
  }
  const problems: string[] = [];
  if (!published(message)) problems.push(`published schema: ${JSON.stringify(published.errors)}`);
  if (!strict(message)) problems.push(`closed schema: ${JSON.stringify(strict.errors)}`);
  return problems;
}

export async function airbyte(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<AirbyteRun> {
  const run = await cli(['airbyte', ...args], options);
  const lines = run.stdout.split('\n');
  expect(lines.pop(), 'stdout ends with a line break').toBe('');
  for (const line of lines) expect(lineProblems(line), line.slice(0, 300)).toEqual([]);
  const messages = lines.map((line) => JSON.parse(line) as Message);
  return { ...run, messages, of: (type) => messages.filter((m) => m.type === type) };
}

/** Writes a JSON file into `dir` and returns its path. */
export async function jsonFile(dir: string, name: string, value: unknown): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, JSON.stringify(value));
  return path;
}

/** A configured catalog selecting these streams. */
export function configuredCatalog(streams: { name: string; sync_mode?: 'incremental' | 'full_refresh' }[]) {
  return {
    streams: streams.map(({ name, sync_mode = 'incremental' }) => ({
      stream: { name, json_schema: {}, supported_sync_modes: ['full_refresh', 'incremental'] },
      sync_mode,
      destination_sync_mode: sync_mode === 'incremental' ? 'append_dedup' : 'overwrite',
    })),
  };
}

/** The last STATE message of each stream, as Airbyte would pass them back with --state. */
export function savedState(run: AirbyteRun): unknown[] {
  const states = run.of('STATE');
  expect(states.length).toBeGreaterThan(0);
  // As Airbyte (and its acceptance tests) keep per-stream states: the last one of each stream.
  const latest = new Map<string, unknown>();
  for (const { state } of states) latest.set(state.stream?.stream_descriptor.name ?? '', state);
  return [...latest.values()];
}

/** No form of any of these secrets in any stdout line but the CONTROL messages, nor on stderr. */
export function expectNoSecretOutsideControl(run: CliRun & { messages?: Message[] }, forms: string[]): void {
  const lines = run.stdout.split('\n').filter((line) => !line.startsWith('{"type":"CONTROL"'));
  const text = `${lines.join('\n')}\n${run.stderr}`;
  for (const form of forms) expect(text.includes(form), `a secret form leaked: ${form.slice(0, 4)}…`).toBe(false);
}
