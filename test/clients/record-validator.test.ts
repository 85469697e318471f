import { describe, expect, it } from 'vitest';
import { SourceUnreachableError } from '../../src/errors/index.js';
import { connectorSchema, groupSchema } from '../../src/clients/index.js';
// internals: the compiled fast path and its threshold, checked against zod (below PipelineClient)
import { COMPILE_AFTER, compile, validateRecord } from '../../src/clients/pipeline/record-validator.js';
import { defaultEmulatorData } from '../../src/emulator/index.js';
import { z } from 'zod';

/**
 * The compiled check (Ajv over zod's JSON Schema) is a fast path only: zod stays the definition.
 * Differential tests: for thousands of single-field mutations of real records, whatever the compiled
 * check accepts zod accepts too, and validateRecord's verdict is always zod's.
 */

const records = defaultEmulatorData().connectors!;
const withCard = records.find((c) => c.connect_card)!;
const plain = records.find((c) => !c.connect_card && c.daily_sync_time)!;

/** Values of every JSON type, and the near-misses of each rule of spec 2.2. */
const REPLACEMENTS: unknown[] = [
  undefined, // the field removed
  null,
  0,
  1,
  -1,
  1.5,
  2 ** 53,
  '',
  'x',
  true,
  false,
  [],
  ['x'],
  {},
  { code: 'c', message: 'm' },
  '2024-01-15T09:30:00Z',
  '2024-01-15T09:30:00.146+02:00',
  '2024-02-30T09:30:00Z',
  '2024-01-15 09:30:00',
  '2024-01-15T24:00:00Z',
  '00:00',
  '23:00',
  '24:00',
  '12:30',
  '7:00',
  'https://example.com/done',
  'HTTPS://EXAMPLE.COM/DONE',
  'http://example.com',
  'ftp://example.com',
  'https://exa mple.com',
  'connected',
  'broken',
  'scheduled',
  'on_schedule',
  'manual',
  'auto',
  'PASSED',
  'passed',
];

/** Every path of a record that holds a value, down through objects and arrays. */
function paths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (value === null || typeof value !== 'object') return [prefix];
  const keys = Array.isArray(value) ? value.map((_, i) => i) : Object.keys(value);
  return [prefix, ...keys.flatMap((k) => paths((value as Record<string | number, unknown>)[k], [...prefix, k]))];
}

function mutated(record: object, path: (string | number)[], replacement: unknown): unknown {
  const copy = structuredClone(record) as Record<string | number, unknown>;
  if (path.length === 0) return replacement;
  let parent: Record<string | number, unknown> = copy;
  for (const step of path.slice(0, -1)) parent = parent[step] as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  if (replacement === undefined && !Array.isArray(parent)) delete parent[last];
  else parent[last] = replacement;
  return copy;
}

function* mutations(record: object): Generator<{ where: string; value: unknown }> {
  for (const path of paths(record))
    for (const replacement of REPLACEMENTS)
      yield { where: `${path.join('.')} = ${JSON.stringify(replacement)}`, value: mutated(record, path, replacement) };
}

describe('the compiled check is never looser than zod', () => {
  for (const [name, schema, samples] of [
    ['connector', connectorSchema, [withCard, plain]],
    ['group', groupSchema, defaultEmulatorData().groups!.slice(0, 2)],
  ] as const) {
    it(`${name}: every single-field mutation the compiled check accepts, zod accepts`, () => {
      const check = compile(schema)!;
      expect(check).toBeTypeOf('function');
      let accepted = 0;
      let refused = 0;
      const looser: string[] = [];
      for (const sample of samples)
        for (const { where, value } of mutations(sample)) {
          const json = JSON.parse(JSON.stringify(value ?? null)); // what JSON.parse of a page gives
          const zodSays = schema.safeParse(json).success;
          if (check(json)) {
            accepted++;
            if (!zodSays) looser.push(where);
          } else refused++;
        }
      expect(looser).toEqual([]);
      // The mutations reach both verdicts plenty: the test can fail.
      expect(accepted).toBeGreaterThan(50);
      expect(refused).toBeGreaterThan(50);
    });
  }

  it('the stricter spots are covered by the zod fallback: an upper-case HTTPS redirect URI is valid', () => {
    const check = compile(connectorSchema)!;
    const record = mutated(plain, ['connect_card_config', 'redirect_uri'], 'HTTPS://APP.EXAMPLE.COM/done') as object;
    expect(check(record)).toBe(false); // JSON Schema patterns lose the regex's i flag
    expect(connectorSchema.safeParse(record).success).toBe(true);
    expect(validateRecord(connectorSchema, record, 'GET https://x/v1', 'data.items[0]')).toEqual(record);
  });

  it('a schema zod cannot express as JSON Schema stays with zod alone', () => {
    expect(compile(z.object({ at: z.date() }))).toBeNull();
  });
});

describe('validateRecord', () => {
  it(`compiles after ${COMPILE_AFTER} records and gives zod's verdict and message before and after`, () => {
    // A schema of its own, so the tier count starts at 0 here.
    const schema = connectorSchema.extend({});
    const bad = mutated(plain, ['daily_sync_time'], '12:30');
    const messageOf = () => {
      try {
        validateRecord(schema, bad, 'GET https://svc/v1/groups/g/connectors', 'data.items[7]');
      } catch (error) {
        expect(error).toBeInstanceOf(SourceUnreachableError);
        return (error as Error).message;
      }
      throw new Error('the bad record was accepted');
    };
    const before = messageOf();
    expect(before).toContain('data.items[7].daily_sync_time');
    for (let i = 0; i < COMPILE_AFTER + 1; i++) validateRecord(schema, plain, 't', 'w');
    const good = structuredClone(plain);
    // On the compiled path an accepted record is handed back as it came, not copied.
    expect(validateRecord(schema, good, 't', 'w')).toBe(good);
    expect(messageOf()).toBe(before);
  });

  it('before compiling, records are zod output (unknown fields kept)', () => {
    const schema = groupSchema.extend({});
    const group = { id: 'g', name: 'G', created_at: '2024-01-01T00:00:00Z', region: 'eu' };
    expect(validateRecord(schema, group, 't', 'w')).toEqual(group);
  });
});
