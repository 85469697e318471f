import type { MethodDefinition, ServiceDefinition } from '@grpc/grpc-js';
import type { Root, Type } from 'protobufjs';

/**
 * The partner SDK's service as grpc-js serves it, made from a protobufjs root. What
 * @grpc/proto-loader's `fromJSON` makes, but its reflection descriptors: proto-loader also turns
 * the whole root into `FileDescriptorProto`s for every method, which compiled protobufjs's
 * descriptor types at every start (29 ms of `serve`'s CPU to "listening on") for a field grpc-js's
 * server never reads. The codecs are proto-loader's: `fromObject` then `encode` to send, `decode`
 * then `toObject` with the loader's options to receive.
 */

export const SERVICE = 'fivetran_sdk.v2.SourceConnector';

/** keepCase: the proto's field names as written; longs as strings (exact), enums by name, oneofs named. */
export const LOADER_OPTIONS = { keepCase: true, longs: String, enums: String, oneofs: true, defaults: false } as const;

export function serviceDefinition(root: Root): ServiceDefinition {
  root.resolveAll();
  const definition: Record<string, MethodDefinition<object, object>> = {};
  for (const method of root.lookupService(SERVICE).methodsArray) {
    const request = method.resolvedRequestType!;
    const response = method.resolvedResponseType!;
    definition[method.name] = {
      path: `/${SERVICE}/${method.name}`,
      requestStream: method.requestStream === true,
      responseStream: method.responseStream === true,
      requestSerialize: serializer(request),
      requestDeserialize: deserializer(request),
      responseSerialize: serializer(response),
      responseDeserialize: deserializer(response),
    };
  }
  return definition;
}

function serializer(type: Type): (message: object) => Buffer {
  return (message) => {
    const bytes = type.encode(type.fromObject(message)).finish();
    // protobufjs writes into a Buffer where there is one (Node), which grpc-js frames as it is.
    return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  };
}

function deserializer(type: Type): (bytes: Buffer) => object {
  return (bytes) => type.toObject(type.decode(bytes), LOADER_OPTIONS);
}
