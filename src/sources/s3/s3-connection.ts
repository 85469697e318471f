import { Agent as HttpAgent } from 'node:http';
import { Agent } from 'node:https';
import type { Readable } from 'node:stream';
import type { GetObjectCommandOutput, S3Client } from '@aws-sdk/client-s3';
import {
  headersDeadline,
  routeAgent,
  tlsConnectOptions,
  type SshTunnel,
  type TlsSettings,
} from '../../network/index.js';
import { ConfigurationError } from '../../errors/index.js';
import { classifiedStream } from '../classified-stream.js';
import type { CredentialFor, ProbeResult } from '../source-definition.js';
import { classifyObjectError, classifyS3Error, type S3FailureContext } from './classify-s3-error.js';
import type { S3ListOptions, S3Object, S3ObjectStat, S3Source } from './s3-objects.js';
import type { S3Location } from './s3-settings.js';

/** What `connect` settled from the configuration: everything the connection needs but the network. */
export interface S3ConnectionSettings {
  location: S3Location;
  /** The bucket, and the bastion it is reached through. */
  target: string;
  credential: CredentialFor<'awsKeys'>;
  timeoutSeconds: number;
  tls: TlsSettings;
  /** The URL the requests go to: the endpoint, or AWS's for the bucket's region. */
  url: URL;
  tunnel: SshTunnel | undefined;
  /** The AWS SDK's S3 package, imported by `connect`. */
  sdk: typeof import('@aws-sdk/client-s3');
}

/**
 * One bucket as update() holds it. Its life: made by `connect` (the SDK client and its keep-alive
 * agents, no network yet); each call is one request under the timeout_seconds deadline, its failure
 * classified; `close` destroys the client and its agents, then closes the tunnel and the credential.
 */
export class S3Connection implements S3Source {
  readonly target: string;
  readonly bucket: string;
  readonly prefix: string;
  readonly #sdkClient: S3Client;
  readonly #httpsAgent: Agent;
  readonly #httpAgent: HttpAgent | undefined;
  readonly #timeoutMs: number;

  /** `#`, not `private`: a connector that logs its source shows none of this (TLS keys, the credential). */
  readonly #settings: S3ConnectionSettings;

  constructor(settings: S3ConnectionSettings) {
    this.#settings = settings;
    const { location, tls, tunnel } = settings;
    this.target = settings.target;
    this.bucket = location.bucket;
    this.prefix = location.prefix;
    this.#timeoutMs = settings.timeoutSeconds * 1000;
    // Through a tunnel, both agents connect by it (routeAgent patches the agent it is given).
    const httpsAgent = new Agent({ keepAlive: true, ...tlsConnectOptions(tls) });
    this.#httpsAgent = tunnel ? routeAgent(httpsAgent, tunnel) : httpsAgent;
    this.#httpAgent = tunnel ? routeAgent(new HttpAgent({ keepAlive: true }), tunnel) : undefined;
    this.#sdkClient = this.newSdkClient();
  }

  probe = async (): Promise<ProbeResult> => {
    const { location, credential } = this.#settings;
    const started = performance.now();
    await credential.prepare?.();
    const listed = await this.call(
      (abortSignal) =>
        this.#sdkClient.send(
          new this.#settings.sdk.ListObjectsV2Command({
            Bucket: location.bucket,
            Prefix: location.prefix || undefined,
            MaxKeys: 1,
          }),
          { abortSignal },
        ),
      (error, timedOut) => classifyS3Error(error, 'list', this.failure(timedOut)),
    );
    const count = listed.KeyCount ?? listed.Contents?.length ?? 0;
    const where = location.prefix ? `under '${location.prefix}'` : 'in the bucket';
    return {
      target: this.target,
      outcome: `S3 list ${where}: ${count === 0 ? 'no objects' : listed.IsTruncated ? 'objects found (listed 1)' : '1 object'}`,
      elapsedMs: performance.now() - started,
    };
  };

  list = (options: S3ListOptions = {}): AsyncIterable<S3Object> => {
    const prefix = options.prefix ?? this.#settings.location.prefix;
    const pageSize = checkPageSize(options.pageSize);
    return { [Symbol.asyncIterator]: () => this.objects(prefix, pageSize, options.startAfter) };
  };

  stat = (key: string): Promise<S3ObjectStat> =>
    this.call(
      async (abortSignal) => {
        const head = await this.#sdkClient.send(
          new this.#settings.sdk.HeadObjectCommand({ Bucket: this.bucket, Key: key }),
          {
            abortSignal,
          },
        );
        return {
          size: head.ContentLength ?? 0,
          modifiedAt: head.LastModified ?? new Date(0),
          etag: head.ETag,
          contentType: head.ContentType,
        };
      },
      this.onObject('stat', key),
    );

  readFile = (key: string): Promise<Buffer> =>
    this.call(
      async (abortSignal) => {
        const object = await this.#sdkClient.send(
          new this.#settings.sdk.GetObjectCommand({ Bucket: this.bucket, Key: key }),
          {
            abortSignal,
          },
        );
        return Buffer.from(await object.Body!.transformToByteArray());
      },
      this.onObject('get', key),
    );

  // No deadline on the stream itself: a large object may take longer than timeout_seconds to read.
  // The deadline covers getting the object's headers only (headersDeadline), not call()'s
  // AbortSignal.timeout, which the SDK's request handler would keep until the whole body is read.
  createReadStream = async (key: string): Promise<Readable> => {
    const deadline = headersDeadline(this.#timeoutMs);
    let object: GetObjectCommandOutput;
    try {
      object = await this.call(
        (abortSignal) =>
          this.#sdkClient.send(new this.#settings.sdk.GetObjectCommand({ Bucket: this.bucket, Key: key }), {
            abortSignal,
          }),
        this.onObject('get', key),
        deadline.signal,
      );
    } finally {
      deadline.disarm();
    }
    // The deadline can still have run out after the headers arrived but before send() resolved,
    // destroying the body: that stream error is the timeout, not a connection the server reset.
    return classifiedStream(object.Body as Readable, (error) =>
      classifyObjectError(error, 'read', key, this.failure(deadline.signal.aborted)),
    );
  };

  // The caller names the SDK's type (s3-objects.ts): this is that client.
  client = <Client>(): Client => this.#sdkClient as Client;

  close = async (): Promise<void> => {
    this.#sdkClient.destroy();
    this.#httpsAgent.destroy();
    this.#httpAgent?.destroy();
    await this.#settings.tunnel?.close();
    await this.#settings.credential.close?.();
  };

  /** The objects under `prefix`, one page request at a time as the caller reads. */
  private async *objects(prefix: string, pageSize: number, startAfter: string | undefined): AsyncGenerator<S3Object> {
    let continuationToken: string | undefined;
    do {
      const page = await this.call(
        (abortSignal) =>
          this.#sdkClient.send(
            new this.#settings.sdk.ListObjectsV2Command({
              Bucket: this.bucket,
              Prefix: prefix || undefined,
              MaxKeys: pageSize,
              ...(continuationToken
                ? { ContinuationToken: continuationToken }
                : startAfter
                  ? { StartAfter: startAfter }
                  : {}),
            }),
            { abortSignal },
          ),
        (error, timedOut) => classifyS3Error(error, `list '${prefix}'`, this.failure(timedOut)),
      );
      for (const item of page.Contents ?? [])
        if (item.Key !== undefined)
          yield { key: item.Key, size: item.Size ?? 0, modifiedAt: item.LastModified ?? new Date(0), etag: item.ETag };
      continuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (continuationToken);
  }

  /**
   * One SDK call under the timeout_seconds deadline (by default one that runs out on its own); its
   * failure classified by `classify`.
   */
  private async call<T>(
    work: (signal: AbortSignal) => Promise<T>,
    classify: (error: unknown, timedOut: boolean) => Promise<Error>,
    deadline: AbortSignal = AbortSignal.timeout(this.#timeoutMs),
  ): Promise<T> {
    try {
      return await work(deadline);
    } catch (error) {
      // A connection the tunnel broke (the bastion refused the channel) is the tunnel's to explain.
      throw this.#settings.tunnel?.takeFailure() ?? (await classify(error, deadline.aborted));
    }
  }

  private onObject(operation: string, key: string) {
    return (error: unknown, timedOut: boolean) => classifyObjectError(error, operation, key, this.failure(timedOut));
  }

  private failure(timedOut?: boolean): S3FailureContext {
    const { location, credential, timeoutSeconds, tls, url, tunnel } = this.#settings;
    return {
      location,
      credential,
      timeoutSeconds,
      tls,
      url,
      urlKey: location.endpoint ? 'endpoint' : 'region',
      route: tunnel,
      ...(timedOut ? { timedOut } : {}),
    };
  }

  private newSdkClient(): S3Client {
    const { location, sdk, credential } = this.#settings;
    const httpsAgent = this.#httpsAgent;
    const httpAgent = this.#httpAgent;
    const agents = httpAgent ? { httpsAgent, httpAgent } : { httpsAgent };
    return new sdk.S3Client({
      region: location.region,
      // A provider: a role's credentials are renewed before they expire, a key's are the same object.
      credentials: () => credential.awsKeys.identity(),
      ...(location.endpoint ? { endpoint: location.endpoint.origin, forcePathStyle: true } : {}),
      // The endpoint comes from configuration.json alone, not AWS_ENDPOINT_URL or ~/.aws/config.
      ignoreConfiguredEndpointUrls: true,
      maxAttempts: 3,
      requestHandler: { ...agents, connectionTimeout: this.#timeoutMs, requestTimeout: this.#timeoutMs },
    });
  }
}

function checkPageSize(pageSize: number | undefined): number {
  if (pageSize === undefined) return 1000;
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 1000)
    throw new ConfigurationError(`S3 list: pageSize must be a whole number from 1 to 1000`, {
      code: 'invalid_page_size',
    });
  return pageSize;
}
