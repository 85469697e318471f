import { channel } from 'node:diagnostics_channel';
import type { z } from 'zod';
import { secrets as defaultRegistry, type SecretRegistry } from '../secrets/index.js';
import { parseKeys } from './keys/index.js';
import { refusePlaceholders } from './placeholders.js';
import { checkFlatStringObject, type RawConfiguration } from './file/index.js';
import { protectConfiguration, registerConfigurationSecrets, registerSecretDefaults } from './protection/index.js';

/**
 * Where each read is announced (Node's diagnostics_channel, free without a subscriber): its key
 * names, never a value. A test counts a run's reads here, in the CLI's own process.
 */
export const CONFIGURATION_READ_CHANNEL = 'connector-auth:configuration-read';
const reads = channel(CONFIGURATION_READ_CHANNEL);

export interface ReadConfigurationOptions {
  /** Where the secret values go; the process's registry by default. */
  registry?: SecretRegistry;
  /** Secret keys of the connector's own, beyond those whose names say so. */
  connectorSecretKeys?: Iterable<string>;
}

/**
 * A configuration once read: the flat map, held here, and its secrets, registered when it was
 * created (readConfiguration) and nowhere else. Readers take what they need through `parse`.
 */
export class Configuration {
  readonly #values: RawConfiguration;
  readonly #registry: SecretRegistry;
  readonly #secretKeys = new Set<string>();
  readonly #connectorSecretKeys = new Set<string>();

  /** Made by readConfiguration; its secrets are registered here, before anything reads a value. */
  constructor(values: RawConfiguration, registry: SecretRegistry) {
    this.#values = values;
    this.#registry = registry;
    this.#register();
    if (reads.hasSubscribers) reads.publish({ keys: Object.keys(values) });
  }

  /** The registry this configuration's secrets are in. */
  get registry(): SecretRegistry {
    return this.#registry;
  }

  /** The secret keys present in this configuration (the connector's own among them), and those a schema read gave their default. */
  get secretKeys(): ReadonlySet<string> {
    return this.#secretKeys;
  }

  /** The key names, never the values. */
  get keys(): string[] {
    return Object.keys(this.#values);
  }

  /**
   * The whole flat map, for the readers that take it whole: the key check, the TLS files, the
   * state that seals a rotated value. The secrets in it are registered already.
   */
  get values(): RawConfiguration {
    return this.#values;
  }

  /**
   * The connector's own secret keys, known once its file has loaded (after the configuration was
   * read: its top-level code could already print a value). Registered at once.
   */
  addConnectorSecretKeys(keys: Iterable<string>): this {
    const added = [...keys].filter((key) => !this.#connectorSecretKeys.has(key));
    if (added.length === 0) return this;
    for (const key of added) this.#connectorSecretKeys.add(key);
    this.#register();
    return this;
  }

  /** The one place a configuration's secrets are registered (again, for keys added since, harmlessly). */
  #register(): void {
    const found = registerConfigurationSecrets(this.#values, {
      registry: this.#registry,
      connectorSecretKeys: this.#connectorSecretKeys,
    });
    for (const key of found) this.#secretKeys.add(key);
  }

  /**
   * One schema's keys, typed; the first issue is a ConfigurationError naming the key. A secret key
   * the configuration leaves out gets the schema's default: that value is registered first, as
   * the configured one would have been.
   */
  parse<S extends z.ZodType>(schema: S, what: string): z.output<S> {
    const defaulted = registerSecretDefaults(schema, {
      present: this.#values,
      connectorSecretKeys: this.#connectorSecretKeys,
      registry: this.#registry,
    });
    for (const key of defaulted) this.#secretKeys.add(key);
    return parseKeys(schema, this.#values, what);
  }

  /** Refuses a template's placeholder left in one of these keys. */
  refusePlaceholders(keys: readonly string[]): void {
    refusePlaceholders(this.#values, keys);
  }

  /**
   * What update() and schema() get: every key, the connector's own typed (`connectorKeys`, its
   * defaults applied), printed with `<redacted:KEY>` for each secret one.
   */
  forConnector(connectorKeys: z.ZodType | undefined): Readonly<RawConfiguration> {
    const own = connectorKeys ? this.parse(connectorKeys, 'the connector') : {};
    return protectConfiguration(
      { ...this.#values, ...(own as object) },
      new Set([...this.#secretKeys, ...this.#connectorSecretKeys]),
    );
  }
}

/**
 * The one way a configuration is read, once per run or call, by the host that received it (the
 * file, the platform's request, library mode's map): the map checked (flat, strings, at most 100
 * keys) and its secrets registered before anything validates it. Everything past the host takes
 * the `Configuration` it returns, never a map, so nothing reads it a second time.
 */
export function readConfiguration(
  values: Readonly<Record<string, string>>,
  options: ReadConfigurationOptions = {},
): Configuration {
  const configuration = new Configuration(checkFlatStringObject(values), options.registry ?? defaultRegistry);
  return configuration.addConnectorSecretKeys(options.connectorSecretKeys ?? []);
}
