import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ServiceDefinition } from '@grpc/grpc-js';
import type * as Protobuf from 'protobufjs';
import { requireWithCodeCache } from '../../code-cache/index.js';
import { LOADER_OPTIONS, SERVICE, serviceDefinition } from './service-definition.js';

/**
 * The partner SDK's protocol and grpc-js, loaded when `serve` starts, never by another command.
 * From the build (scripts/bundle.js): grpc-js with protobufjs's light build as one CommonJS file
 * required with the code cache, and the protocol as the JSON descriptor made from our .proto files,
 * so that no .proto is parsed at start. From src/ (tests, bench under tsx) neither is there: the
 * packages load, and protobufjs parses protocols/fivetran/ itself.
 */

export { LOADER_OPTIONS, SERVICE };

/** From dist/hosts/fivetran/ (the CLI) and src/hosts/fivetran/ (tests, bench) alike: the package root's protocols/. */
export const PROTOCOL_DIR = fileURLToPath(new URL('../../../protocols/fivetran/', import.meta.url));

/** The build's files, relative to this module's place in dist/. */
const BUNDLED_GRPC = '../../bundle/grpc.cjs';
const BUNDLED_DESCRIPTOR = '../../bundle/fivetran-protocol.json';

export type Grpc = typeof import('@grpc/grpc-js');
type ProtobufLight = Pick<typeof Protobuf, 'Root'>;

export async function loadProtocol(): Promise<{ grpc: Grpc; service: ServiceDefinition }> {
  const { grpc, root } = bundled() ?? (await fromPackages());
  const service = serviceDefinition(root);
  const update = service.Update!;
  const serialize = update.responseSerialize;
  // Record batches arrive already encoded (record-batch.ts); every other message is an object.
  const responseSerialize = (message: unknown) => (Buffer.isBuffer(message) ? message : serialize(message));
  return { grpc, service: { ...service, Update: { ...update, responseSerialize } } };
}

/** The build's single file and descriptor, or undefined where they are not (src/). */
function bundled(): { grpc: Grpc; root: Protobuf.Root } | undefined {
  let loaded: { grpc: Grpc; protobuf: ProtobufLight };
  try {
    loaded = requireWithCodeCache(fileURLToPath(new URL(BUNDLED_GRPC, import.meta.url))) as typeof loaded;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // Not built: read by the code cache (ENOENT), or by Node's require() where Node keeps the cache.
    if (code === 'ENOENT' || code === 'MODULE_NOT_FOUND') return undefined;
    throw error;
  }
  const descriptor = readFileSync(new URL(BUNDLED_DESCRIPTOR, import.meta.url), 'utf8');
  return { grpc: loaded.grpc, root: loaded.protobuf.Root.fromJSON(JSON.parse(descriptor) as Protobuf.INamespace) };
}

async function fromPackages(): Promise<{ grpc: Grpc; root: Protobuf.Root }> {
  const [grpc, protobuf] = await Promise.all([import('@grpc/grpc-js'), import('protobufjs')]);
  const root = new protobuf.default.Root().loadSync(`${PROTOCOL_DIR}connector_sdk.proto`, { keepCase: true });
  return { grpc, root };
}
