import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import {
  createPipelineClient,
  createWebhookClient,
  type Connector,
  type PipelineClient,
  type WebhookClient,
} from '../../src/clients/index.js';
// internals: the CLI's IO type, which a command takes (cli/ is the entry point and has no door)
import type { CliIO } from '../../src/cli/cli-io.js';
import { createLogger } from '../../src/log/index.js';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../src/emulator/index.js';
import { createCa, issueServer } from '../peers/certificates.js';

/** Shared by the client, emulator and CLI tests: a real emulator on loopback and clients over real HTTP. */

/** Retries without waiting, and a record of every wait a client asked for. */
export function recordingRetry(retries = 3) {
  const waits: number[] = [];
  return { waits, options: { retries, sleep: async (ms: number) => void waits.push(ms) } };
}

export async function emulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  return startEmulator(options);
}

export function pipelineClient(
  emu: RunningEmulator,
  overrides: { apiSecret?: string; collection?: 'connectors' | 'connections'; retries?: number } = {},
) {
  const retry = recordingRetry(overrides.retries ?? 3);
  const client = createPipelineClient(
    {
      baseUrl: emu.pipelineUrl,
      apiKey: emu.credentials.apiKey,
      apiSecret: overrides.apiSecret ?? emu.credentials.apiSecret,
      timeoutSeconds: 10,
    },
    { retry: retry.options, ...(overrides.collection ? { collection: overrides.collection } : {}) },
  );
  return client.then((c: PipelineClient) => Object.assign(c, { waits: retry.waits }));
}

export function webhookClient(
  emu: RunningEmulator,
  auth: { token?: string } | { basic: { username: string; password: string } } = {},
): Promise<WebhookClient & { waits: number[] }> {
  const retry = recordingRetry();
  const connection =
    'basic' in auth
      ? { baseUrl: emu.webhookUrl, authMethod: 'basic' as const, ...auth.basic }
      : { baseUrl: emu.webhookUrl, token: auth.token ?? emu.credentials.webhookToken };
  return createWebhookClient(connection, { retry: retry.options }).then((c) =>
    Object.assign(c, { waits: retry.waits }),
  );
}

/** A raw request to the emulator, for the wire-level tests (status, headers, exact bodies). */
export async function raw(
  emu: RunningEmulator,
  path: string,
  init: { method?: string; authorization?: string | null; accept?: string; body?: unknown } = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const headers: Record<string, string> = { accept: init.accept ?? 'application/json' };
  if (init.authorization !== null)
    headers.authorization = init.authorization ?? basic(emu.credentials.apiKey, emu.credentials.apiSecret);
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${emu.url}${path}`, {
    method: init.method ?? 'GET',
    headers,
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
}

/** A control route (`/_emulator/...`), which must succeed. */
export async function control(emu: RunningEmulator, method: string, path: string, body?: unknown): Promise<any> {
  const reply = await raw(emu, `/_emulator${path}`, {
    method,
    authorization: null,
    ...(body !== undefined ? { body } : {}),
  });
  return reply;
}

export const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
export const bearer = (token: string) => `Bearer ${token}`;

/** Every form a secret could leak in. */
export function expectNoLeak(text: string, secret: string, username?: string): void {
  const forms = [
    secret,
    Buffer.from(secret).toString('base64'),
    Buffer.from(secret).toString('base64url'),
    encodeURIComponent(secret),
    JSON.stringify(secret).slice(1, -1),
    ...(username ? [Buffer.from(`${username}:${secret}`).toString('base64')] : []),
  ];
  for (const form of forms) expect(text, 'a form of the secret leaked').not.toContain(form);
}

/** The error a promise rejects with (fails the test when it resolves). */
export async function failure(promise: Promise<unknown>): Promise<any> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure, got a result');
}

/** A CliIO that keeps what a command prints; the logger is the real one, writing into the buffer. */
export function captureIO(
  json = false,
): CliIO & { stdout: string[]; stderr: string[]; progressLines: Array<string | undefined>; text(): string } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const progressLines: Array<string | undefined> = [];
  return {
    stdout,
    stderr,
    progressLines,
    progress: (line) => void progressLines.push(line),
    text: () => [...stdout, ...stderr].join('\n'),
    out: (t) => void stdout.push(t),
    err: (t) => void stderr.push(t),
    json,
    verbose: false,
    stdoutIsTTY: false,
    stderrIsTTY: false,
    log: createLogger({ level: 'debug', format: 'json', write: (line) => void stderr.push(line) }),
  };
}

export interface ReceivedEvent {
  path: string;
  body: any;
  /** The body as the bytes arrived (decoded as UTF-8), for signature checks. */
  raw: string;
  headers: Record<string, string | string[] | undefined>;
}

/**
 * A local HTTPS receiver for event deliveries, with a certificate from a throw-away CA made at test
 * time (node-forge). The emulator trusts that CA through its `deliveryCa` option.
 */
export async function httpsReceiver(): Promise<{
  url: string;
  caPem: string;
  received: ReceivedEvent[];
  status: { code: number };
  stop(): Promise<void>;
}> {
  const ca = createCa();
  const cert = issueServer(ca, { hosts: ['127.0.0.1'] });
  const received: ReceivedEvent[] = [];
  const status = { code: 204 };
  const server: Server = createServer({ key: cert.privateKeyPem, cert: cert.certificatePem }, (req, res) => {
    let text = '';
    req.on('data', (d: Buffer) => (text += d.toString()));
    req.on('end', () => {
      received.push({ path: req.url ?? '/', body: JSON.parse(text), raw: text, headers: req.headers });
      res.writeHead(status.code).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    caPem: ca.certificatePem,
    received,
    status,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The fields a connector record cannot do without; the rest are optional (see pipeline-records.ts). */
export function minimalConnector(id: string, group: string): Connector {
  return {
    id,
    group_id: group,
    service: 'postgres',
    schema: `schema_${id}`,
    paused: false,
    status: { setup_state: 'connected', sync_state: 'scheduled', update_state: 'on_schedule', tasks: [], warnings: [] },
    config: {},
    sync_frequency: 360,
    created_at: '2024-01-01T00:00:00.000Z',
  };
}
