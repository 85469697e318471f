import { fileURLToPath } from 'node:url';

/**
 * The partner SDK's protocol, loaded from our own .proto files (protocols/fivetran/, shipped in
 * the package) with @grpc/proto-loader, and grpc-js itself: both imported here, when `serve`
 * starts, never by another command.
 */

/** From dist/hosts/fivetran/ (the CLI) and src/hosts/fivetran/ (tests, bench) alike: the package root's protocols/. */
export const PROTOCOL_DIR = fileURLToPath(new URL('../../../protocols/fivetran/', import.meta.url));
export const SERVICE = 'fivetran_sdk.v2.SourceConnector';

/** keepCase: the proto's field names as written; longs as strings (exact), enums by name, oneofs named. */
export const LOADER_OPTIONS = { keepCase: true, longs: String, enums: String, oneofs: true, defaults: false } as const;

export type Grpc = typeof import('@grpc/grpc-js');

export async function loadProtocol(): Promise<{ grpc: Grpc; service: import('@grpc/grpc-js').ServiceDefinition }> {
  const [grpc, loader] = await Promise.all([import('@grpc/grpc-js'), import('@grpc/proto-loader')]);
  const definition = await loader.load('connector_sdk.proto', { ...LOADER_OPTIONS, includeDirs: [PROTOCOL_DIR] });
  const service = definition[SERVICE] as import('@grpc/grpc-js').ServiceDefinition;
  const update = service.Update!;
  const serialize = update.responseSerialize;
  // Record batches arrive already encoded (record-batch.ts); every other message is an object.
  const responseSerialize = (message: unknown) => (Buffer.isBuffer(message) ? message : serialize(message));
  return { grpc, service: { ...service, Update: { ...update, responseSerialize } } };
}
