import { spawnSync } from 'node:child_process';
import { readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { cli, type CliRun } from '../helpers/cli.js';
import type { KdcPeer } from '../peers/kdc.js';

/** What the Kerberos tests share: a probe's verdict through the built CLI, a credential cache, leak forms. */

export interface Verdict {
  run: CliRun;
  code?: string;
  key?: string;
  message?: string;
}

/** `connector-auth probe --json` on a project whose configuration.json is `configuration`. */
export async function probeVerdict(
  dir: string,
  configuration: Record<string, string>,
  env: NodeJS.ProcessEnv = {},
): Promise<Verdict> {
  await writeFile(join(dir, 'configuration.json'), JSON.stringify(configuration, null, 2) + '\n');
  const run = await cli(['probe', dir, '--json'], { env });
  const line = run.stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .pop();
  const json = line ? (JSON.parse(line) as { code?: string; key?: string; message?: string }) : {};
  return { run, code: json.code, key: json.key, message: json.message };
}

/** A credential cache holding a ticket of `principal` for `lifetime` (kinit -l), fetched with its keytab. */
export function kinit(kdc: KdcPeer, keytabFile: string, principal: string, cache: string, lifetime = '10h'): void {
  const run = spawnSync('kinit', ['-k', '-t', keytabFile, '-l', lifetime, principal], {
    env: { ...kdc.env(), KRB5CCNAME: cache },
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`kinit failed: ${run.stderr}`);
}

/**
 * The keytab's forms a leak would take: its base64 (the configured value), its hex, and each key's
 * bytes in hex, as MIT's own `klist -k -K` reads them from the file (not through our parser).
 */
export function keytabLeakForms(kdc: KdcPeer, keytabFile: string, keytab: Buffer): string[] {
  const listed = spawnSync('klist', ['-k', '-K', keytabFile], { env: kdc.env(), encoding: 'utf8' });
  if (listed.status !== 0) throw new Error(`klist -k -K failed: ${listed.stderr}`);
  const keys = [...listed.stdout.matchAll(/\(0x([0-9a-f]+)\)/g)].map((m) => m[1]!);
  expect(keys.length).toBeGreaterThan(0);
  return [
    keytab.toString('base64'),
    keytab.toString('hex'),
    ...keys,
    ...keys.map((k) => Buffer.from(k, 'hex').toString('base64')),
  ];
}

export function expectNothingOf(texts: string[], forms: string[]): void {
  for (const text of texts)
    for (const form of forms) expect(text.includes(form), `leaked ${form.slice(0, 12)}…`).toBe(false);
}

/** The temp directories the kerberos method made and has not removed. */
export async function leftoverKrb5Dirs(): Promise<string[]> {
  return (await readdir(tmpdir())).filter((name) => name.startsWith('connector-auth-krb5-'));
}
