import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as loader from '@grpc/proto-loader';
import { BIN } from '../../helpers/cli.js';
import { watchOutput } from '../../helpers/watched-output.js';

/**
 * `connector-auth serve` as Fivetran runs it: the BUILT CLI in a child process (`npm test` builds
 * first), and a real gRPC client made from our own .proto files (protocols/fivetran/), as the
 * platform's client is made from the upstream ones.
 */

export const PROTOCOL_DIR = fileURLToPath(new URL('../../../protocols/fivetran/', import.meta.url));

const definition = loader.loadSync('connector_sdk.proto', {
  includeDirs: [PROTOCOL_DIR],
  keepCase: true,
  longs: String,
  enums: String,
  oneofs: true,
  defaults: false,
});

const SourceConnector = (grpc.loadPackageDefinition(definition) as any).fivetran_sdk.v2
  .SourceConnector as grpc.ServiceClientConstructor;

export interface ServeProcess {
  port: number;
  child: ChildProcessWithoutNullStreams;
  /** Everything printed so far. */
  stdout(): string;
  stderr(): string;
  /** stdout as parsed JSON lines; a line that is not JSON fails the test that asks. */
  lines(): { level: string; message: string; 'message-origin': string }[];
  /** Resolves when a stdout line matches. */
  until(pattern: RegExp, timeoutMs?: number): Promise<void>;
  /** Sends a signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  exited: Promise<number | null>;
}

export async function startServe(
  project: string,
  extra: string[] = [],
  env: NodeJS.ProcessEnv = {},
): Promise<ServeProcess> {
  const child = spawn(process.execPath, [BIN, 'serve', project, '--port', '0', '--host', '127.0.0.1', ...extra], {
    env: { ...process.env, NO_COLOR: '1', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const output = watchOutput(child, 'serve');
  const until = (pattern: RegExp, timeoutMs = 20_000) => output.until(pattern, timeoutMs);
  await until(/listening on 127\.0\.0\.1:\d+/);
  const port = Number(/listening on 127\.0\.0\.1:(\d+)/.exec(output.stdout())![1]);
  return {
    port,
    child,
    stdout: output.stdout,
    stderr: output.stderr,
    lines: () =>
      output
        .stdout()
        .split('\n')
        .filter((l) => l.length > 0)
        .map((l) => JSON.parse(l) as { level: string; message: string; 'message-origin': string }),
    until,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null) child.kill(signal);
      return output.exited;
    },
    exited: output.exited,
  };
}

export interface UpdateMessage {
  operation: 'records' | 'record' | 'checkpoint' | 'warning' | 'task' | 'schema_change';
  records?: { records: RecordMessage[] };
  checkpoint?: { state_json: string };
}

export interface RecordMessage {
  table_name: string;
  type?: 'UPSERT' | 'UPDATE' | 'DELETE' | 'TRUNCATE';
  data?: Record<string, Record<string, unknown> & { inner: string }>;
}

export interface UpdateResult {
  messages: UpdateMessage[];
  records: RecordMessage[];
  checkpoints: Record<string, unknown>[];
  /** undefined: the stream ended OK. */
  error?: grpc.ServiceError;
}

/** A client of the SourceConnector service at host:port (127.0.0.1 by default), its calls as promises. */
export function connectorClient(port: number, host = '127.0.0.1') {
  const client = new SourceConnector(`${host}:${port}`, grpc.credentials.createInsecure());
  const unary = <T>(method: string, request: object) =>
    new Promise<T>((resolve, reject) =>
      (client as unknown as Record<string, (r: object, cb: (e: grpc.ServiceError | null, v: T) => void) => void>)[
        method
      ]!.call(client, request, (error, value) => (error ? reject(error) : resolve(value))),
    );
  return {
    client,
    configurationForm: () => unary<Record<string, unknown>>('ConfigurationForm', {}),
    test: (configuration: Record<string, string>, name = 'probe') =>
      unary<{ success?: boolean; failure?: string }>('Test', { name, configuration }),
    schema: (configuration: Record<string, string>) => unary<Record<string, unknown>>('Schema', { configuration }),
    /** The Update stream, to read at one's own pace. */
    updateStream: (request: { configuration: Record<string, string>; state_json?: string; selection?: object }) =>
      (client as unknown as { Update(r: object): grpc.ClientReadableStream<UpdateMessage> }).Update(request),
    /** An Update read to its end. */
    update: (request: { configuration: Record<string, string>; state_json?: string; selection?: object }) =>
      new Promise<UpdateResult>((resolve) => {
        const stream = (client as unknown as { Update(r: object): grpc.ClientReadableStream<UpdateMessage> }).Update(
          request,
        );
        const result: UpdateResult = { messages: [], records: [], checkpoints: [] };
        stream.on('data', (message: UpdateMessage) => {
          result.messages.push(message);
          if (message.records) result.records.push(...message.records.records);
          if (message.checkpoint)
            result.checkpoints.push(JSON.parse(message.checkpoint.state_json) as Record<string, unknown>);
        });
        stream.on('error', (error: grpc.ServiceError) => resolve({ ...result, error }));
        stream.on('end', () => resolve(result));
      }),
    close: () => client.close(),
  };
}

/** A record's values as plain JS: each ValueType's set member (longs as strings, timestamps as ms). */
export function plain(record: RecordMessage): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(record.data ?? {})) {
    const member = value[value.inner];
    if (value.inner === 'null') out[column] = null;
    // A Timestamp of the epoch has both fields at their default: it decodes as {}.
    else if (/^(naive_date|naive_datetime|utc_datetime|naive_time)$/.test(value.inner)) {
      const t = member as { seconds?: string; nanos?: number };
      out[column] = { [value.inner]: Number(t.seconds ?? 0) * 1000 + Math.round((t.nanos ?? 0) / 1e6) };
    } else out[column] = { [value.inner]: Buffer.isBuffer(member) ? member.toString('utf8') : member };
  }
  return out;
}
