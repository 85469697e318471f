import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEMO_VALUES } from '../config/index.js';
import {
  defaultEmulatorData,
  parseEmulatorData,
  readEmulatorData,
  seedStore,
  type EmulatorData,
  type EmulatorDataInput,
} from './data/index.js';
import {
  EXAMPLE_API_PATH,
  FaultInjector,
  handleControl,
  handleExampleApi,
  handlePipeline,
  handleWebhooks,
  sendJson,
  type EmulatorContext,
  type EmulatorCredentials,
  type EmulatorSettings,
  type WebhookAuthScheme,
} from './routes/index.js';
import { EmulatorStore, PageBuffers, type PagingStyle } from './store/index.js';
import { EventDelivery, SyncSimulator, type Delivery } from './syncs/index.js';

/**
 * A local server for both interfaces of the specification, on one port: the pipeline management
 * interface under `/v1`, the sync webhook interface under `/api/v1/webhooks`, and emulator-only
 * control routes under `/_emulator`. Node's own `http` module: nothing to install, nothing to mock.
 */

/** Credentials the emulator accepts unless told otherwise. Demo values: never use them for anything real. */
export const DEMO_CREDENTIALS: Readonly<EmulatorCredentials> = Object.freeze({
  apiKey: DEMO_VALUES.emulatorApiKey,
  apiSecret: DEMO_VALUES.emulatorApiSecret,
  webhookToken: DEMO_VALUES.emulatorWebhookToken,
  webhookUsername: DEMO_VALUES.emulatorApiKey,
  webhookPassword: DEMO_VALUES.emulatorApiSecret,
});

export interface EmulatorOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1: the control routes need no credentials, so the emulator stays on loopback. */
  host?: string;
  /** A data file path, a data object, or the default data set when absent. */
  data?: string | EmulatorDataInput;
  credentials?: Partial<EmulatorCredentials>;
  webhookAuthSchemes?: WebhookAuthScheme[];
  pagingStyle?: PagingStyle;
  webhookNotFoundAs?: EmulatorSettings['webhookNotFoundAs'];
  baselineStartTime?: string;
  /** CA certificate(s) to trust when delivering events to HTTPS receivers. */
  deliveryCa?: string | Buffer | Array<string | Buffer>;
  /** The simulation's clock (default: the real one). */
  now?: () => Date;
  /** Bearer token of the example REST API (default: the public demo token). */
  exampleApiToken?: string;
}

export interface RequestRecord {
  method: string;
  path: string;
  accept: string | undefined;
  /**
   * The Authorization header's scheme word (`Basic`, `Bearer`), never what follows it; `(none)` when
   * the header does not start with one; undefined without the header.
   */
  authorizationScheme: string | undefined;
}

export interface RunningEmulator {
  /** The server root, e.g. `http://127.0.0.1:43121`. */
  url: string;
  /** `base_url` of the pipeline interface (paths `v1/...` are joined below it). */
  pipelineUrl: string;
  /** `webhook_base_url` of the webhook interface (paths `api/v1/webhooks...`). */
  webhookUrl: string;
  /** Root of the emulator-only control routes. */
  controlUrl: string;
  /** `base_url` of the example REST API the rest-api template pages through (Bearer `exampleApiToken`). */
  exampleApiUrl: string;
  exampleApiToken: string;
  store: EmulatorStore;
  credentials: EmulatorCredentials;
  settings: EmulatorSettings;
  deliveries: readonly Delivery[];
  /** Requests served on the two interfaces (control routes not counted): "no request was sent" is checkable. */
  readonly requests: number;
  /** The last 100 such requests: method, path, Accept and the Authorization scheme (never its value). */
  readonly recentRequests: readonly RequestRecord[];
  stop(): Promise<void>;
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const data: EmulatorData =
    typeof options.data === 'string'
      ? await readEmulatorData(options.data)
      : parseEmulatorData(options.data ?? defaultEmulatorData());
  const store = new EmulatorStore();
  seedStore(store, data);
  const now = options.now ?? (() => new Date());
  const credentials = emulatorCredentials(data, options);
  const settings = emulatorSettings(options);
  const ctx = emulatorContext(options, store, credentials, settings, now);
  const { delivery } = ctx;

  let requests = 0;
  const recentRequests: RequestRecord[] = [];
  const server = createServer((req, res) => {
    if (!req.url?.startsWith('/_emulator')) {
      requests++;
      record(recentRequests, req);
    }
    handle(req, res, ctx).catch((error: unknown) => {
      if (!res.headersSent)
        sendJson(res, 500, { code: 'InternalError', message: error instanceof Error ? error.message : String(error) });
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 30_000;
  await listen(server, options);
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;
  return {
    url,
    pipelineUrl: url,
    webhookUrl: url,
    controlUrl: `${url}/_emulator`,
    exampleApiUrl: `${url}${EXAMPLE_API_PATH}`,
    exampleApiToken: ctx.exampleApiToken,
    store,
    credentials,
    settings,
    deliveries: delivery.log,
    get requests() {
      return requests;
    },
    recentRequests,
    stop: () =>
      new Promise<void>((resolve) => {
        delivery.close();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function emulatorContext(
  options: EmulatorOptions,
  store: EmulatorStore,
  credentials: EmulatorCredentials,
  settings: EmulatorSettings,
  now: () => Date,
): EmulatorContext {
  const delivery = new EventDelivery({ now, ...(options.deliveryCa ? { ca: options.deliveryCa } : {}) });
  return {
    exampleApiToken: options.exampleApiToken ?? DEMO_VALUES.exampleApiToken,
    store,
    simulator: new SyncSimulator(store, now),
    delivery,
    faults: new FaultInjector(),
    pageBuffers: new PageBuffers(),
    credentials,
    settings,
    now,
  };
}

/** The demo credentials, replaced by the data's, then by the options'; the webhook's follow the API's unless given. */
function emulatorCredentials(data: EmulatorData, options: EmulatorOptions): EmulatorCredentials {
  const fromData = data.credentials ?? {};
  const credentials: EmulatorCredentials = {
    ...DEMO_CREDENTIALS,
    ...(fromData.api_key ? { apiKey: fromData.api_key, webhookUsername: fromData.api_key } : {}),
    ...(fromData.api_secret ? { apiSecret: fromData.api_secret, webhookPassword: fromData.api_secret } : {}),
    ...(fromData.webhook_token ? { webhookToken: fromData.webhook_token } : {}),
    ...options.credentials,
  };
  if (options.credentials?.apiKey && !options.credentials.webhookUsername)
    credentials.webhookUsername = options.credentials.apiKey;
  if (options.credentials?.apiSecret && !options.credentials.webhookPassword)
    credentials.webhookPassword = options.credentials.apiSecret;
  return credentials;
}

function emulatorSettings(options: EmulatorOptions): EmulatorSettings {
  return {
    pagingStyle: options.pagingStyle ?? 'look-ahead',
    webhookNotFoundAs: options.webhookNotFoundAs ?? 'http_404',
    webhookAuthSchemes: options.webhookAuthSchemes ?? ['bearer', 'basic'],
    baselineStartTime: options.baselineStartTime ?? '00:00',
  };
}

function listen(server: Server, options: EmulatorOptions): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
}

/** One request on the two interfaces, kept among the last 100 (the Authorization scheme, never its value). */
function record(recentRequests: RequestRecord[], req: IncomingMessage): void {
  recentRequests.push({
    method: req.method ?? 'GET',
    path: req.url ?? '/',
    accept: req.headers.accept,
    authorizationScheme: authorizationScheme(req.headers.authorization),
  });
  if (recentRequests.length > 100) recentRequests.shift();
}

async function handle(req: IncomingMessage, res: ServerResponse, ctx: EmulatorContext): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://emulator');
  const path = url.pathname;
  if (path === '/_emulator' || path.startsWith('/_emulator/')) return handleControl(req, res, url, ctx);
  const fault = ctx.faults.take(req.method ?? 'GET', path);
  if (fault) {
    req.resume();
    return sendJson(
      res,
      fault.status,
      fault.body ?? { code: 'InjectedFault', message: `Injected HTTP ${fault.status}` },
      {
        ...(fault.retryAfter !== undefined ? { 'retry-after': fault.retryAfter } : {}),
      },
    );
  }
  if (path === '/api/v1/webhooks' || path.startsWith('/api/v1/webhooks/')) return handleWebhooks(req, res, url, ctx);
  if (path.startsWith('/v1/')) return handlePipeline(req, res, url, ctx);
  if (path === EXAMPLE_API_PATH || path.startsWith(`${EXAMPLE_API_PATH}/`))
    return handleExampleApi(req, res, url, ctx.exampleApiToken);
  sendJson(res, 404, { code: 'NotFound', message: `No endpoint ${req.method} ${path}.` });
}

/**
 * The scheme of an Authorization header for the request log. The credential checks accept a tab
 * after the scheme, so splitting at a space would record `Bearer\t<token>` whole: only letters
 * followed by a space or a tab are kept, anything else is `(none)`. Not letters up to the end: a
 * header that is a bare token of letters (no scheme) would be recorded whole.
 */
function authorizationScheme(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  return /^[A-Za-z]+(?=[ \t])/.exec(header)?.[0] ?? '(none)';
}
