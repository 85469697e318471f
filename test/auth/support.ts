import { readFile } from 'node:fs/promises';
import { expect } from 'vitest';
import { authenticate, type AuthenticateOptions } from '../../src/connector/index.js';
import { createLogger, type Logger } from '../../src/log/index.js';
import { SecretRegistry } from '../../src/secrets/index.js';
import type { OutgoingRequest } from '../../src/auth/index.js';
import { leakForms } from '../helpers/cli.js';

/** What the token method tests share: a debug-level logger whose lines are kept, a fake clock, leak checks. */

export interface Harness {
  registry: SecretRegistry;
  log: Logger;
  /** Every line the logger wrote, at debug level, after redaction (what a user would see). */
  lines: string[];
  clock: FakeClock;
}

export interface FakeClock {
  now: () => number;
  set(ms: number): void;
  advance(ms: number): void;
}

export function fakeClock(start = Date.now()): FakeClock {
  let t = start;
  return { now: () => t, set: (ms) => void (t = ms), advance: (ms) => void (t += ms) };
}

export function harness(): Harness {
  const registry = new SecretRegistry();
  const lines: string[] = [];
  const log = createLogger({ level: 'debug', format: 'json', registry, write: (line) => lines.push(line) });
  return { registry, log, lines, clock: fakeClock() };
}

/** authenticate() with the harness's registry and logger (and, when asked, its fake clock). */
export function connect(
  h: Harness,
  configuration: Record<string, string>,
  options: Omit<AuthenticateOptions, 'source'> & { fakeClock?: boolean } = {},
) {
  const { fakeClock: useFake, ...rest } = options;
  return authenticate(configuration, {
    source: 'rest',
    registry: h.registry,
    log: h.log,
    ...(useFake ? { now: h.clock.now } : {}),
    ...rest,
  });
}

/** authenticate(), the probe, then one fetch of `items` through the authenticated source; closed whatever happens. */
export async function probeWith(h: Harness, configuration: Record<string, string>) {
  const a = await connect(h, configuration);
  try {
    const probe = await a.probe();
    const items = await a.source.json<{ items: unknown[] }>('items');
    return { probe, items };
  } finally {
    await a.close();
  }
}

export function request(url: string): OutgoingRequest {
  return { method: 'GET', url: new URL(url), headers: new Headers() };
}

export { rejection } from '../helpers/rejection.js';

/** None of the secrets, in any form they travel in, appears in any of the texts. */
export function expectNoLeak(texts: string[], secrets: (string | undefined)[]): void {
  const all = texts.join('\n');
  for (const secret of secrets) {
    if (!secret) continue;
    for (const form of leakForms(secret)) {
      if (form.length < 8) continue;
      expect(all.includes(form), `a form of a secret (${secret.slice(0, 4)}…) leaked`).toBe(false);
    }
  }
}

/** The access tokens a Bearer header carried. */
export function bearerOf(req: OutgoingRequest): string {
  const value = req.headers.get('authorization') ?? '';
  expect(value).toMatch(/^Bearer \S+$/);
  return value.slice(7);
}

/** The first configuration.json example of a docs/auth page, as written there. */
export async function docExample(page: string): Promise<Record<string, string>> {
  const text = await readFile(new URL(`../../docs/auth/${page}`, import.meta.url), 'utf8');
  const block = /```json\n([\s\S]*?)```/.exec(text);
  if (!block) throw new Error(`docs/auth/${page} has no json example`);
  return JSON.parse(block[1]!) as Record<string, string>;
}
