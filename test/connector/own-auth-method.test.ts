import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineAuthMethod, defineConnector, defineSource, z, type Credential } from '../../src/index.js';
import { authenticate, checkConfigurationKeys } from '../../src/connector/index.js';
import { silentLogger } from '../../src/log/index.js';
import { describeConfiguration } from '../../src/project/index.js';
import { SecretRegistry } from '../../src/secrets/index.js';
import { rejection } from '../helpers/rejection.js';
import { start, type HttpApiPeer } from '../peers/http-api.js';

/**
 * A method of the connector's own in `defineConnector({ auth })`, in library use: matched to the
 * source by what it provides, its keys parsed, its secret keys registered with the connector's,
 * known to the key check, described for the forms with its secrets as secrets; a 401 from a real API
 * is one retry after `invalidate()`, then exit 3 naming its `rejectedKey`.
 */

const TOKEN = 'own-method-T0ken/+x';
let peer: HttpApiPeer;
beforeAll(async () => {
  peer = await start({ auth: { kind: 'header', name: 'x-team-key', value: TOKEN } });
});
afterAll(async () => {
  await peer?.stop();
});

let invalidations = 0;
const teamKey = defineAuthMethod({
  name: 'team_key',
  summary: 'Our team key, in X-Team-Key',
  provides: ['httpRequest'],
  keys: z.object({ team_key_value: z.string().min(1), team_name: z.string().default('data') }),
  secretKeys: ['team_key_value'],
  create(keys): Credential {
    return {
      method: 'team_key',
      description: `team key of '${keys.team_name}'`,
      rejectedKey: 'team_key_value',
      sendsSecret: true,
      httpRequest: {
        async authorize(request) {
          request.headers.set('x-team-key', keys.team_key_value);
        },
      },
      invalidate: () => (invalidations++, true),
    };
  },
});

const connector = defineConnector({ source: 'rest', auth: ['bearer', teamKey], async update() {} });
const configuration = (value = TOKEN) => ({
  auth_method: 'team_key',
  team_key_value: value,
  base_url: peer.url,
  probe_path: 'health',
});

describe("a connector's own auth method", () => {
  it('is authenticated and probed like a built-in one; its secret key is registered', async () => {
    const registry = new SecretRegistry();
    const a = await authenticate(configuration(), {
      source: 'rest',
      methods: connector.auth!,
      connectorSecretKeys: new Set(connector.secretKeys),
      registry,
    });
    try {
      expect(a.credential.description).toBe("team key of 'data'");
      expect(a.secretKeys.has('team_key_value')).toBe(true);
      expect(registry.redact(`sent ${TOKEN}`)).not.toContain(TOKEN);
      expect((await a.probe()).outcome).toBe('HTTP 200');
    } finally {
      await a.close();
    }
  });

  it('a 401 from the API: one retry after invalidate(), then exit 3 naming its rejectedKey', async () => {
    const before = invalidations;
    const a = await authenticate(configuration('a-wrong-team-key'), {
      source: 'rest',
      methods: connector.auth!,
      registry: new SecretRegistry(),
    });
    const failure = await rejection(a.probe());
    await a.close();
    expect(failure.exitCode).toBe(3);
    expect(failure.key).toBe('team_key_value');
    expect(invalidations - before).toBe(1);
  });

  it('defineConnector adds its secret keys to the connector’s; the key check knows its keys', () => {
    expect(connector.secretKeys).toEqual(['team_key_value']);
    const checked = checkConfigurationKeys(
      Object.keys({ ...configuration(), team_name: 'x' }),
      connector,
      silentLogger,
    );
    expect(checked.unknownKeys).toEqual([]);
    expect(() => checkConfigurationKeys(['team_key_valu'], connector, silentLogger)).toThrow(
      /did you mean 'team_key_value'/,
    );
  });

  it('the forms list it after the built-in ones it is offered with, its secret key as a secret', async () => {
    const description = await describeConfiguration(connector);
    expect(description.methods.map((m) => m.name)).toEqual(['bearer', 'team_key']);
    const own = description.methods.find((m) => m.name === 'team_key')!;
    expect(own.summary).toBe('Our team key, in X-Team-Key');
    expect(own.fields).toEqual([
      expect.objectContaining({ key: 'team_key_value', secret: true, required: true }),
      expect.objectContaining({ key: 'team_name', secret: false, required: false, default: 'data' }),
    ]);
  });

  it('a source that needs another capability does not accept it, naming the methods that fit', async () => {
    const database = defineSource({
      name: 'toy-db',
      summary: 'a toy',
      keys: z.object({}),
      needs: ['password'],
      connect: async () => ({
        probe: async () => ({ target: 'toy', outcome: 'ok', elapsedMs: 0 }),
        close: async () => {},
      }),
    });
    const failure = await rejection(
      authenticate(configuration(), {
        source: database as never,
        methods: ['password', teamKey],
        registry: new SecretRegistry(),
      }),
    );
    expect(failure.code).toBe('method_not_accepted');
    expect(failure.message).toContain('it accepts password');
  });

  it('must say what it provides, and take no built-in name', async () => {
    const { provides: _, ...silent } = teamKey;
    const offering = (method: object) =>
      authenticate(configuration(), { source: 'rest', methods: [method as never], registry: new SecretRegistry() });
    expect((await rejection(offering(silent))).message).toMatch(/does not say what it provides/);
    expect((await rejection(offering({ ...teamKey, name: 'bearer' }))).message).toMatch(/takes a name already in use/);
  });
});
