import type { sendUnaryData, Server, ServerUnaryCall, UntypedServiceImplementation } from '@grpc/grpc-js';
import type { LoadedConnector } from '../../connector/index.js';
import { useKeyPlace } from '../../config/index.js';
import { ConfigurationError } from '../../errors/index.js';
import type { Logger } from '../../log/index.js';
import { secrets as processSecrets } from '../../secrets/index.js';
import { describeConfiguration, loadConnector, projectPaths } from '../../project/index.js';
import { configurationForm, failureLine, runSchema, runTest, runUpdate, statusOf } from './calls/index.js';
import type { ConfigurationFormMessage } from './calls/index.js';
import { partnerLogger, routeConsole, type PartnerLogOptions } from './partner-log.js';
import { loadProtocol, SERVICE, type Grpc } from './protocol.js';
import type { UpdateStream } from './records/index.js';
import type { ServeContext } from './serve-context.js';
import { CallSecrets, RotatedValues } from './state/index.js';

/**
 * `connector-auth serve`: the project's connector as a gRPC server of the partner SDK's
 * `fivetran_sdk.v2.SourceConnector`. The connector file is loaded before the port is bound, so a
 * broken connector.ts fails at start, not at the first call. Calls run side by side, each with its
 * own configuration, secrets, credential and source (ServeContext holds only what they share).
 *
 * stop() (SIGTERM, SIGINT): no new calls; each running Update goes on to its next checkpoint and ends
 * there (UNAVAILABLE: the next Update resumes from it); after `graceSeconds` whatever still runs is
 * cancelled.
 */

export interface ServeOptions {
  project?: string;
  host?: string;
  port?: number;
  verbose?: boolean;
  /** How long running calls get after stop() before they are cancelled (default 25 s). */
  graceSeconds?: number;
  /** Where log lines go (default stdout). */
  write?: (line: string) => void;
}

export interface RunningServer {
  host: string;
  port: number;
  log: Logger;
  /** Stops as described above; resolves when every call has ended. */
  stop(): Promise<void>;
}

export async function serve(options: ServeOptions = {}): Promise<RunningServer> {
  const output = new ServeOutput(options);
  const paths = projectPaths(options.project);
  // Side by side: the connector through tsx, gRPC and the protocol files.
  const [{ connector }, { grpc, service }] = await Promise.all([loadConnector(paths.project), loadProtocol()]).catch(
    (error: unknown) => output.failStart(error),
  );
  routeGrpcLog(grpc, output.log);
  const lifecycle = new ServeLifecycle(grpc, output, options.graceSeconds ?? 25);
  lifecycle.server.addService(service, callHandlers(lifecycle.context(connector)));
  const { host, port } = await listen(lifecycle.server, grpc, options.host, options.port ?? 50051).catch(
    (failure: unknown) => output.failStart(failure),
  );
  announce(output.log, `${bracketed(host)}:${port}`, paths.project);
  return { host, port, log: output.log, stop: () => lifecycle.stop() };
}

/** The partner log, and what serve changes in the process while it runs: the console and the key place. */
class ServeOutput {
  readonly log: Logger;
  readonly #logOptions: PartnerLogOptions;
  readonly #restorePlace: () => void;
  readonly #restoreConsole: () => void;

  constructor(options: ServeOptions) {
    this.#logOptions = { verbose: options.verbose ?? false, ...(options.write ? { write: options.write } : {}) };
    this.log = partnerLogger(this.#logOptions);
    // Fivetran sends the configuration its setup form saved: hints name the form's fields.
    this.#restorePlace = useKeyPlace('form');
    this.#restoreConsole = routeConsole(this.log);
  }

  /** The logger of one call, its lines redacted with the call's secrets. */
  callLog(registry: CallSecrets): Logger {
    return partnerLogger({ ...this.#logOptions, registry });
  }

  restore(): void {
    this.#restoreConsole();
    this.#restorePlace();
  }

  /** Serve could not start: the reason logged, the process restored, the error thrown on. */
  failStart(error: unknown): never {
    // The platform reads stdout: the reason goes there too, before the CLI prints its error line.
    this.log.critical(`cannot start: ${failureLine(error, processSecrets)}`);
    this.restore();
    throw error;
  }
}

/** grpc-js's own diagnostics become our lines too. */
function routeGrpcLog(grpc: Grpc, log: Logger): void {
  grpc.setLogger({
    error: (...args: unknown[]) => log.error(args.map(String).join(' ')),
    info: () => {},
    debug: () => {},
  });
}

/** The gRPC server with what its calls share, from its creation to the end of stop(). */
class ServeLifecycle {
  readonly server: Server;
  readonly #grpc: Grpc;
  readonly #output: ServeOutput;
  readonly #graceSeconds: number;
  readonly #updates = new Set<UpdateStream>();
  #stopping = false;
  #stopped: Promise<void> | undefined;

  constructor(grpc: Grpc, output: ServeOutput, graceSeconds: number) {
    this.#grpc = grpc;
    this.#output = output;
    this.#graceSeconds = graceSeconds;
    // The development guide's limit for messages both ways is 128 MB; grpc-js refuses a request past
    // 4 MiB by default, and an UpdateRequest carries the whole state_json the platform stored.
    this.server = new grpc.Server({
      'grpc.max_receive_message_length': MAX_MESSAGE_BYTES,
      'grpc.max_send_message_length': MAX_MESSAGE_BYTES,
    });
  }

  context(connector: LoadedConnector): ServeContext {
    return {
      connector,
      grpc: this.#grpc,
      rotated: new RotatedValues(),
      log: (registry) => this.#output.callLog(registry),
      updates: this.#updates,
      stopping: () => this.#stopping,
    };
  }

  /** No new calls; running Updates end at their next checkpoint; the rest is cancelled after the grace. */
  stop(): Promise<void> {
    return (this.#stopped ??= new Promise<void>((resolve) => {
      const log = this.#output.log;
      this.#stopping = true;
      log.info(`stopping: no new calls; ${this.#updates.size} running Update(s) end at their next checkpoint`);
      for (const update of this.#updates) update.requestStop();
      const grace = setTimeout(() => {
        log.warning(`the calls still running after ${this.#graceSeconds} s are cancelled`);
        this.server.forceShutdown();
      }, this.#graceSeconds * 1000);
      this.server.tryShutdown(() => {
        clearTimeout(grace);
        this.#output.restore();
        log.info('stopped');
        resolve();
      });
    }));
  }
}

/** The service's calls: unary ones through unaryCall, Update streaming. */
function callHandlers(context: ServeContext): UntypedServiceImplementation {
  return {
    ConfigurationForm: unaryCall(context, 'ConfigurationForm', configurationFormOnce(context.connector)),
    Test: unaryCall(context, 'Test', (request: Parameters<typeof runTest>[0], registry) =>
      runTest(request, context, registry),
    ),
    Schema: unaryCall(context, 'Schema', (request: Parameters<typeof runSchema>[0], registry) =>
      runSchema(request, context, registry),
    ),
    Update: (call: Parameters<typeof runUpdate>[0]) => void runUpdate(call, context),
  };
}

/** A unary call: its own secrets, released when it ends; a failure becomes our status. */
function unaryCall<Request, Response>(
  context: ServeContext,
  name: string,
  run: (request: Request, registry: CallSecrets) => Promise<Response>,
) {
  return (call: ServerUnaryCall<Request, Response>, callback: sendUnaryData<Response>) => {
    const registry = new CallSecrets();
    run(call.request, registry)
      .then(
        (response) => callback(null, response),
        (error: unknown) => {
          context.log(registry).error(`${name} failed: ${failureLine(error, registry)}`);
          callback(statusOf(error, registry, context.grpc) as Parameters<sendUnaryData<Response>>[0]);
        },
      )
      .finally(() => registry.release());
  };
}

/** The configuration form, made once; a failure is not kept, so the next call tries again. */
function configurationFormOnce(connector: LoadedConnector): () => Promise<ConfigurationFormMessage> {
  let form: Promise<ConfigurationFormMessage> | undefined;
  return async () =>
    (form ??= describeConfiguration(connector)
      .then(configurationForm)
      .catch((error: unknown) => {
        form = undefined;
        throw error;
      }));
}

/** The line the platform waits for, with the account and destination group the environment names. */
function announce(log: Logger, address: string, project: string): void {
  const where = [
    process.env.FIVETRAN_ACCOUNT_NAME && `account ${process.env.FIVETRAN_ACCOUNT_NAME}`,
    process.env.FIVETRAN_GROUP_NAME && `group ${process.env.FIVETRAN_GROUP_NAME}`,
  ].filter(Boolean);
  log.info(
    `listening on ${address}: ${SERVICE} for ${project}${where.length ? ` (${where.join(', ')})` : ''} (${Math.round(performance.now())} ms after start)`,
  );
}

/**
 * Where serve listens by default: every IPv6 and IPv4 address (`::` is dual-stack on Linux), as the
 * partner SDK's guide asks; where the host has no IPv6, every IPv4 address.
 */
const DEFAULT_HOSTS = ['::', '0.0.0.0'];
/** The partner SDK's maximum gRPC message size, inbound and outbound (development guide, FAQ). */
const MAX_MESSAGE_BYTES = 134_217_728;

const bracketed = (host: string) => (host.includes(':') ? `[${host}]` : host);

/** Binds the server to `host` (or the first default host that can be bound) and `port`. */
async function listen(
  server: Server,
  grpc: Grpc,
  host: string | undefined,
  port: number,
): Promise<{ host: string; port: number }> {
  const candidates = host === undefined ? DEFAULT_HOSTS : [host];
  let failure: Error | undefined;
  for (const candidate of candidates) {
    const address = `${bracketed(candidate)}:${port}`;
    try {
      return {
        host: candidate,
        port: await new Promise<number>((resolve, reject) =>
          server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (error, bound) =>
            error ? reject(error) : resolve(bound),
          ),
        ),
      };
    } catch (error) {
      // The first host's reason is the one to report: the fallback fails for the same one, or its own.
      failure ??= new ConfigurationError(`cannot listen on ${address}: ${(error as Error).message}`, {
        code: 'listen_failed',
        hint: 'choose another --port or --host',
      });
    }
  }
  throw failure!;
}
