import type { AuthMethod, CapabilityName, Credential, RotatingSecret, Timers } from '../../auth/index.js';
import { rotationDaysOf, warnIfCredentialOld } from '../../auth/index.js';
import { commonKeys, type CommonKeys, type Configuration } from '../../config/index.js';
import { SourceUnreachableError } from '../../errors/index.js';
import { silentLogger, type Logger } from '../../log/index.js';
import type { SecretRegistry } from '../../secrets/index.js';
import {
  loadSource,
  type ConnectedSource,
  type CredentialFor,
  type ProbeResult,
  type SourceDefinition,
} from '../../sources/index.js';
import { createAuthContext } from './auth-context.js';
import { checkProvided, matchCapability } from './match-capability.js';
import { resolveMethod, type OfferedMethod } from './offered-methods.js';
import type { SourceClients } from '../definition/index.js';

export interface AuthenticateOptions {
  /** A built-in source name (default `rest`) or a custom source definition. */
  source?: keyof SourceClients | SourceDefinition;
  log?: Logger;
  registry?: SecretRegistry;
  /** Library mode: secret keys of the connector's own, beyond those whose names say so (registered when the map is read). */
  connectorSecretKeys?: ReadonlySet<string>;
  /**
   * The auth methods the connector offers (`defineConnector({ auth })`): built-in names and methods of
   * its own; all the built-in ones the source accepts when absent.
   */
  methods?: readonly OfferedMethod[];
  /** Persist a rotated configuration value (e.g. a refresh token) before it is used. */
  persistConfigurationValue?: (key: string, value: string) => Promise<void>;
  /** A host's hold on secrets that rotate when used, shared by its concurrent calls (AuthContext.rotatingSecret). */
  rotatingSecret?: RotatingSecret;
  filesDir?: string;
  now?: () => number;
  /** How auth methods wait (token endpoint backoff); tests pass timers that advance a fake clock. */
  timers?: Timers;
}

export interface Authenticated<Source extends ConnectedSource = ConnectedSource> {
  readonly source: Source;
  readonly credential: Credential;
  readonly common: CommonKeys;
  /** The secret keys of this configuration. */
  readonly secretKeys: ReadonlySet<string>;
  /** One lightweight authenticated call, bounded by timeout_seconds. */
  probe(): Promise<ProbeResult>;
  close(): Promise<void>;
}

export interface ResolvedConfiguration {
  readonly configuration: Configuration;
  readonly common: CommonKeys;
  readonly method: AuthMethod;
  readonly methodKeys: unknown;
  readonly source: SourceDefinition;
  readonly sourceKeys: unknown;
  /** What the source uses of the method's credential: the first of its `needs` the method provides. */
  readonly capability: CapabilityName;
  readonly secretKeys: ReadonlySet<string>;
}

/**
 * The configuration read through the schemas: the common keys, the method's and the source's keys
 * validated (its secrets were registered when the host read it). What the keys' values mean (a
 * certificate that has expired, a key that does not parse, a token URL over plain http) is checked
 * by `authenticateResolved`, also without the network.
 */
export async function resolveConfiguration(
  configuration: Configuration,
  options: Pick<AuthenticateOptions, 'source' | 'log' | 'methods'> = {},
): Promise<ResolvedConfiguration> {
  const log = options.log ?? silentLogger;
  for (const key of configuration.registry.tooShort)
    log.warning(
      `the value of secret key '${key}' is shorter than 4 characters: too short to redact safely from output`,
    );

  const common = configuration.parse(commonKeys, 'all sources');
  const method = await resolveMethod(common.auth_method, options.methods);
  const source = typeof options.source === 'object' ? options.source : await loadSource(options.source ?? 'rest');
  const capability = matchCapability(method.name, source, options.methods);
  // Before the method's and the source's schemas: a template's `<YOUR_API_TOKEN>` passes them all,
  // and would fail much later as something else. Only keys this configuration reads count: a
  // placeholder left in the key of a method no longer used is harmless.
  configuration.refusePlaceholders([...keysOf(commonKeys), ...keysOf(method.keys), ...keysOf(source.keys)]);
  const methodKeys = configuration.parse(method.keys, `auth_method '${method.name}'`);
  const sourceKeys = configuration.parse(source.keys, `the ${source.name} source`);
  const secretKeys = configuration.secretKeys;
  return { configuration, common, method, methodKeys, source, sourceKeys, capability, secretKeys };
}

/**
 * A configuration the host has read, an authenticated source out — the path every run takes (and
 * library mode's `authenticate`, once it has read its map). No request is sent until `probe()` (or
 * the source's own calls). Gating the process's output is the caller's: library mode's
 * `authenticate` and a run outside a gating host (startRun) do it.
 */
export async function authenticateConfiguration(
  configuration: Configuration,
  options: Omit<AuthenticateOptions, 'connectorSecretKeys'> = {},
): Promise<Authenticated> {
  return authenticateResolved(await resolveConfiguration(configuration, options), options);
}

/**
 * The credential created and the source connected from a resolved configuration. Nothing goes over
 * the network here — methods ask for tokens, and sources open connections, at the first call that
 * needs one — so this is also every check `connector-auth validate` makes: key material read,
 * addresses checked, the SSH tunnel's settings and key, TLS files and their dates.
 */
export async function authenticateResolved(
  { configuration, common, method, methodKeys, source, sourceKeys, capability, secretKeys }: ResolvedConfiguration,
  options: Omit<AuthenticateOptions, 'source' | 'connectorSecretKeys'> = {},
): Promise<Authenticated> {
  const log = options.log ?? silentLogger;
  const now = options.now ?? Date.now;
  warnIfCredentialOld(method.name, rotationDaysOf(method, methodKeys), common.credential_issued_at, now(), log);
  if (common.environment)
    log.info(`environment: ${common.environment} (auth_method ${method.name}, source ${source.name})`);

  const context = createAuthContext(configuration, {
    common,
    log,
    secrets: options.registry ?? configuration.registry,
    now,
    ...(options.persistConfigurationValue ? { persistConfigurationValue: options.persistConfigurationValue } : {}),
    ...(options.rotatingSecret ? { rotatingSecret: options.rotatingSecret } : {}),
    ...(options.filesDir ? { filesDir: options.filesDir } : {}),
    ...(options.timers ? { timers: options.timers } : {}),
  });

  const credential = await method.create(methodKeys, context);
  checkProvided(credential, capability);
  // The match above makes the credential one the source can use: what the source's type says.
  const connected = await source.connect(sourceKeys, credential as CredentialFor<CapabilityName>, context);
  const deadlineMs = common.timeout_seconds * 1000;

  return {
    source: connected,
    credential,
    common,
    secretKeys,
    probe: () => withDeadline(connected.probe(), deadlineMs, `${credential.description}: the ${source.name} probe`),
    close: () => connected.close(),
  };
}

/** The probe as a whole (token, then request) gets timeout_seconds, not each step. */
async function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new SourceUnreachableError(`${what} did not finish within ${ms / 1000}s`, {
            code: 'probe_timeout',
            key: 'timeout_seconds',
            hint: "check that the source is reachable, or raise 'timeout_seconds'",
          }),
        ),
      ms,
    );
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** The keys a schema of configuration keys declares (a zod object's shape; none for anything else). */
function keysOf(schema: unknown): string[] {
  const shape = (schema as { shape?: unknown } | null)?.shape;
  return shape !== null && typeof shape === 'object' ? Object.keys(shape) : [];
}
