import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Runs the built CLI (`npm test` builds first) as a user would, capturing everything it prints. */
export const BIN = fileURLToPath(new URL('../../bin/connector-auth.js', import.meta.url));

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
}

export function cli(
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {},
): Promise<CliRun> {
  return startCli(args, options).done;
}

/**
 * The CLI started, not awaited: for a test that acts while it runs (a signal, a second run). `output`
 * is what it printed so far; `done` its end. `command` replaces `node` (a shell that sets limits first).
 */
export function startCli(
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string; command?: [string, ...string[]] } = {},
): { child: ChildProcessWithoutNullStreams; output: () => { stdout: string; stderr: string }; done: Promise<CliRun> } {
  const started = performance.now();
  const [program, ...before] = options.command ?? [process.execPath];
  const child = spawn(program, [...before, BIN, ...args], {
    cwd: options.cwd,
    env: { ...process.env, NO_COLOR: '1', ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdin.end(options.input ?? '');
  const done = new Promise<CliRun>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr, ms: performance.now() - started }));
  });
  return { child, output: () => ({ stdout, stderr }), done };
}

/** Every form a secret could leak in: raw, base64, base64url, URL-encoded, JSON-escaped. */
export function leakForms(secret: string, extra: string[] = []): string[] {
  return [
    secret,
    Buffer.from(secret).toString('base64'),
    Buffer.from(secret).toString('base64url'),
    encodeURIComponent(secret),
    JSON.stringify(secret).slice(1, -1),
    ...extra,
  ];
}

/** All text under a directory (missing → ''), to search files/ for leaks; DuckDB files read as latin1. */
export async function readTree(dir: string): Promise<string> {
  let out = '';
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    const path = join(dir, entry.name);
    out += entry.isDirectory() ? await readTree(path) : (await readFile(path)).toString('latin1');
  }
  return out;
}

export async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/**
 * `connector-auth init <root>/<name> --template <template>`; with `overrides`, configuration.json is
 * the template's own with them laid over it. Returns the project directory.
 */
export async function initTemplate(
  root: string,
  name: string,
  template: string,
  overrides?: Record<string, string>,
  options: { replaceConfiguration?: boolean; vendor?: boolean; auth?: readonly string[] | 'all' } = {},
): Promise<string> {
  const dir = join(root, name);
  // Packing this checkout into vendor/ is what a project needs to be installed (`vendor: true`); a test
  // that only runs the CLI on the project skips it, as `init --registry` does: the CLI resolves
  // 'connector-auth' to itself, and the pack was most of each scaffold's time.
  const init = await cli(['init', dir, '--template', template, ...(options.vendor ? [] : ['--registry'])]);
  if (init.code !== 0) throw new Error(`init --template ${template} failed (${init.code}): ${init.stderr}`);
  if (options.auth) await offerMethods(dir, options.auth);
  if (overrides) {
    const scaffolded = options.replaceConfiguration
      ? {}
      : (JSON.parse(await readFile(join(dir, 'configuration.json'), 'utf8')) as Record<string, string>);
    await writeFile(join(dir, 'configuration.json'), JSON.stringify({ ...scaffolded, ...overrides }, null, 2) + '\n');
  }
  return dir;
}

/**
 * The templates name the auth methods they offer (`auth: [...]` in connector.ts): a test that runs a
 * scaffolded project with another method makes its connector offer that one (`'all'`: the line
 * removed, every method its source accepts).
 */
export async function offerMethods(dir: string, auth: readonly string[] | 'all'): Promise<void> {
  const file = join(dir, 'connector.ts');
  const code = await readFile(file, 'utf8');
  const line = /^ {2}auth: \[[^\]]*\],\n/m;
  if (!line.test(code)) throw new Error(`${file} names no auth methods on one line to replace`);
  const offered = auth === 'all' ? '' : `  auth: [${auth.map((m) => `'${m}'`).join(', ')}],\n`;
  await writeFile(file, code.replace(line, offered));
}
