import type { Readable } from 'node:stream';
import type { ConnectedSource } from '../source-definition.js';

/** What a connector's update() holds for a bucket (s3-source.ts makes it), and what its calls return. */

export interface S3Source extends ConnectedSource {
  /** "s3://orders/exports/ (eu-west-1)": no secret in it. */
  readonly target: string;
  readonly bucket: string;
  /** The configured `prefix` ('' when none). */
  readonly prefix: string;
  /** Every object under `prefix` (default: the configured one), in key order, page by page as it is read. */
  list(options?: S3ListOptions): AsyncIterable<S3Object>;
  /** One object's size, time and ETag (a HEAD request). */
  stat(key: string): Promise<S3ObjectStat>;
  /** A whole object, in memory: for small objects. */
  readFile(key: string): Promise<Buffer>;
  /** An object as a stream, for large ones; read errors arrive as the stream's 'error'. */
  createReadStream(key: string): Promise<Readable>;
  /**
   * The SDK client itself, for calls this surface lacks (its requests are signed with the same key
   * and go to the same place). Errors it throws are the SDK's, not classified. Named by the caller
   * (`source.client<S3Client>()`, S3Client from `@aws-sdk/client-s3`): that package is an optional
   * peer, and our declarations import none of its types, so a project without it still type-checks.
   */
  client<Client = S3SdkClient>(): Client;
}

/** The little of the SDK's S3Client known without its types: send a command, get its output. */
export interface S3SdkClient {
  send(command: object): Promise<unknown>;
  destroy(): void;
}

export interface S3ListOptions {
  prefix?: string;
  /** Only keys after this one: resume a listing where the last sync stopped. */
  startAfter?: string;
  /** Keys asked for per request, 1..1000 (default 1000, S3's maximum). */
  pageSize?: number;
}

export interface S3Object {
  key: string;
  size: number;
  modifiedAt: Date;
  etag: string | undefined;
}

export interface S3ObjectStat {
  size: number;
  modifiedAt: Date;
  etag: string | undefined;
  contentType: string | undefined;
}
