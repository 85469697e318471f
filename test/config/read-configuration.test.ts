import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { readConfiguration } from '../../src/config/index.js';
import { authenticateConfiguration, runConnector } from '../../src/connector/index.js';
import { SecretRegistry } from '../../src/secrets/index.js';

/**
 * A configuration is read once, by readConfiguration, and its secrets are registered then and
 * nowhere else: the connector's own secret keys when they become known, and nothing again when
 * the read configuration is handed on (authenticateConfiguration(), a run). Past the host, the
 * types take a `Configuration`, never a map: a map handed to a run does not compile.
 */

/** A real registry that also counts what it is asked to register, to see a second registration. */
class CountingRegistry extends SecretRegistry {
  calls: string[] = [];
  override register(label: string, value: string): void {
    this.calls.push(label);
    super.register(label, value);
  }
}

const TOKEN = 'tok-7f3a9c21e5';
const PIN = 'pin-50917342';
const values = { auth_method: 'bearer', token: TOKEN, base_url: 'https://api.example/v1', api_pin: PIN };

describe('readConfiguration', () => {
  it("registers a secret key's default when a schema read applies it, and not when the configuration gives the key", () => {
    const schema = z.object({
      signing_secret: z.string().default('sgn-default-9e41c'),
      page: z.string().default('page-default'),
    });
    const registry = new SecretRegistry();
    const configuration = readConfiguration(values, { registry });
    expect(configuration.parse(schema, 'the connector')).toEqual({
      signing_secret: 'sgn-default-9e41c',
      page: 'page-default',
    });
    expect(registry.redact('sgn-default-9e41c page-default')).toBe('<redacted:signing_secret> page-default');
    expect(configuration.secretKeys).toContain('signing_secret');
    expect(JSON.stringify(configuration.forConnector(schema))).toContain(
      '"signing_secret":"<redacted:signing_secret>"',
    );
    const given = new SecretRegistry();
    readConfiguration({ ...values, signing_secret: 'sgn-given-31ab7' }, { registry: given }).parse(
      schema,
      'the connector',
    );
    expect(given.redact('sgn-default-9e41c')).toBe('sgn-default-9e41c');
  });

  it('registers the secrets when the configuration is read, before any key is validated', () => {
    const registry = new SecretRegistry();
    const configuration = readConfiguration(values, { registry });
    expect(registry.redact(`Bearer ${TOKEN}`)).toBe('Bearer <redacted:token>');
    expect([...configuration.secretKeys]).toEqual(['token']);
    // api_pin's name does not say it is secret: only the connector can.
    expect(registry.redact(PIN)).toBe(PIN);
  });

  it("registers the connector's own secret keys as soon as they are added", () => {
    const registry = new SecretRegistry();
    const configuration = readConfiguration(values, { registry });
    configuration.addConnectorSecretKeys(['api_pin']);
    expect(registry.redact(PIN)).toBe('<redacted:api_pin>');
    expect([...configuration.secretKeys].sort()).toEqual(['api_pin', 'token']);
  });

  it('a connector secret key added again registers nothing again', () => {
    const registry = new CountingRegistry();
    const configuration = readConfiguration(values, { registry, connectorSecretKeys: ['api_pin'] });
    const registered = registry.calls.length;
    expect(registered).toBeGreaterThan(0);
    expect(configuration.addConnectorSecretKeys(['api_pin'])).toBe(configuration);
    expect(registry.calls).toHaveLength(registered);
  });

  it('a run and authenticateConfiguration take a read configuration, never a map (checked by tsc)', () => {
    // @ts-expect-error a map is read by its host first (readConfiguration); the run takes what it read
    const map: Parameters<typeof runConnector>[0]['configuration'] = values;
    // @ts-expect-error likewise for the path every run authenticates by
    const again: Parameters<typeof authenticateConfiguration>[0] = values;
    expect([map, again]).toEqual([values, values]);
  });

  it('handed to authenticateConfiguration(), is not registered a second time', async () => {
    const registry = new CountingRegistry();
    const configuration = readConfiguration(values, { registry });
    const registered = registry.calls.length;
    const auth = await authenticateConfiguration(configuration, { registry });
    await auth.close();
    expect(auth.secretKeys).toBe(configuration.secretKeys);
    expect(registry.calls).toHaveLength(registered);
  });

  it('gives the connector every key, its own typed with defaults, printed with each secret one redacted', () => {
    const registry = new SecretRegistry();
    const configuration = readConfiguration(values, { registry, connectorSecretKeys: ['api_pin', 'api_salt'] });
    const own = z.object({ page_size: z.coerce.number().default(50), api_salt: z.string().default('salt-default-1') });
    const view = configuration.forConnector(own) as Record<string, unknown>;
    expect(view.page_size).toBe(50);
    expect(view.token).toBe(TOKEN);
    expect(JSON.parse(JSON.stringify(view))).toMatchObject({
      token: '<redacted:token>',
      api_pin: '<redacted:api_pin>',
      // A default of a secret key the configuration does not hold is hidden too.
      api_salt: '<redacted:api_salt>',
      page_size: 50,
    });
  });

  it('refuses what is not a flat object of strings, as the file reader does', () => {
    expect(() => readConfiguration({ port: 5432 } as never, { registry: new SecretRegistry() })).toThrow(
      /key 'port' is a number/,
    );
  });
});
