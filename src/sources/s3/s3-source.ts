import { Agent as HttpAgent } from 'node:http';
import { Agent } from 'node:https';
import type { Readable } from 'node:stream';
import type { GetObjectCommandOutput } from '@aws-sdk/client-s3';
import { quietAwsSdkNodeVersionWarning } from '../../auth/index.js';
import { ConfigurationError, importOptionalPackage } from '../../errors/index.js';
import {
  guardPlainHttp,
  headersDeadline,
  prepareSshTunnel,
  routeAgent,
  tlsConnectOptions,
  urlDestination,
  warnTlsUnverified,
} from '../../network/index.js';
import { classifiedStream } from '../classified-stream.js';
import { defineSource, type ProbeResult } from '../source-definition.js';
import { classifyObjectError, classifyS3Error, type S3FailureContext } from './classify-s3-error.js';
import type { S3Source } from './s3-objects.js';
import { DEFAULT_REGION, describeLocation, s3Keys, type S3Location } from './s3-settings.js';

/**
 * An S3 bucket (AWS, or any S3-compatible server through `endpoint`), through the AWS SDK's S3
 * client, imported by `connect`. The probe lists at most one object under `prefix`: it proves the
 * key, its signature, the bucket and the permission to list it, in one request. The client stays
 * for the connector's update(), which gets the same small surface as the sftp source: list, stat,
 * read an object whole or as a stream.
 *
 * Only configuration.json decides where requests go and with which key: no credentials, region or
 * endpoint are taken from the environment or ~/.aws (the SDK's defaults would).
 */

export default defineSource({
  name: 's3',
  tls: true,
  summary:
    'S3 bucket (AWS or S3-compatible via endpoint): requests signed with the AWS credentials (a key or a role session); probe = list one object under prefix',
  keys: s3Keys,
  needs: ['awsKeys'],
  async connect(k, credential, context): Promise<S3Source> {
    const aws = credential.awsKeys;
    const location: S3Location = {
      bucket: k.bucket,
      prefix: k.prefix,
      region: k.region?.trim() || aws.region || DEFAULT_REGION,
      endpoint: k.endpoint,
    };
    const endpoint = k.endpoint;
    if (endpoint)
      guardPlainHttp({
        url: endpoint,
        key: 'endpoint',
        exposes: "the bucket's data and replayable signed requests",
        allowed: context.common.allow_plain_http,
        log: context.log,
      });
    const tls = await context.tls.read();
    if (!tls.verify)
      warnTlsUnverified(
        context.log,
        `S3 at ${endpoint?.host ?? `s3.${location.region}.amazonaws.com`}`,
        'the signed requests and the data',
      );
    const timeoutMs = context.common.timeout_seconds * 1000;
    const url = endpoint
      ? new URL(`${endpoint.origin}/${location.bucket}/`)
      : new URL(`https://s3.${location.region}.amazonaws.com/${location.bucket}/`);
    // Through a bastion: an S3-compatible server at `endpoint`, one origin that the bastion reaches.
    // AWS itself is addressed by virtual-hosted bucket names, not one host a tunnel can be set up for.
    if (k.ssh_tunnel_host && !endpoint)
      throw new ConfigurationError(
        `invalid configuration for the s3 source: an SSH tunnel needs 'endpoint', the S3-compatible server behind the bastion`,
        {
          code: 'ssh_tunnel_needs_endpoint',
          key: 'endpoint',
          hint: "set 'endpoint' to the server as the bastion reaches it, or remove 'ssh_tunnel_host'",
        },
      );
    const tunnel = await prepareSshTunnel(k, urlDestination(url, 'endpoint'), {
      timeoutSeconds: context.common.timeout_seconds,
      log: context.log,
      secrets: context.secrets,
    });
    const target = describeLocation(location) + (tunnel ? ` via ${tunnel.bastion}` : '');
    const failure = (timedOut?: boolean): S3FailureContext => ({
      location,
      credential,
      timeoutSeconds: context.common.timeout_seconds,
      tls,
      url,
      urlKey: endpoint ? 'endpoint' : 'region',
      route: tunnel,
      ...(timedOut ? { timedOut } : {}),
    });

    quietAwsSdkNodeVersionWarning();
    const s3 = await importOptionalPackage('@aws-sdk/client-s3', "source 's3'", () => import('@aws-sdk/client-s3'));
    const httpsAgent = new Agent({ keepAlive: true, ...tlsConnectOptions(tls) });
    const agents = tunnel
      ? {
          httpsAgent: routeAgent(httpsAgent, tunnel),
          httpAgent: routeAgent(new HttpAgent({ keepAlive: true }), tunnel),
        }
      : { httpsAgent };
    const client = new s3.S3Client({
      region: location.region,
      // A provider: a role's credentials are renewed before they expire, a key's are the same object.
      credentials: () => aws.identity(),
      ...(endpoint ? { endpoint: endpoint.origin, forcePathStyle: true } : {}),
      // The endpoint comes from configuration.json alone, not AWS_ENDPOINT_URL or ~/.aws/config.
      ignoreConfiguredEndpointUrls: true,
      maxAttempts: 3,
      requestHandler: { ...agents, connectionTimeout: timeoutMs, requestTimeout: timeoutMs },
    });

    /**
     * One SDK call under the timeout_seconds deadline (by default one that runs out on its own); its
     * failure classified by `classify`.
     */
    const call = async <T>(
      work: (signal: AbortSignal) => Promise<T>,
      classify: (error: unknown, timedOut: boolean) => Promise<Error>,
      deadline: AbortSignal = AbortSignal.timeout(timeoutMs),
    ): Promise<T> => {
      try {
        return await work(deadline);
      } catch (error) {
        // A connection the tunnel broke (the bastion refused the channel) is the tunnel's to explain.
        throw tunnel?.takeFailure() ?? (await classify(error, deadline.aborted));
      }
    };
    const onObject = (operation: string, key: string) => (error: unknown, timedOut: boolean) =>
      classifyObjectError(error, operation, key, failure(timedOut));

    return {
      target,
      bucket: location.bucket,
      prefix: location.prefix,
      async probe(): Promise<ProbeResult> {
        const started = performance.now();
        await credential.prepare?.();
        const listed = await call(
          (abortSignal) =>
            client.send(
              new s3.ListObjectsV2Command({
                Bucket: location.bucket,
                Prefix: location.prefix || undefined,
                MaxKeys: 1,
              }),
              { abortSignal },
            ),
          (error, timedOut) => classifyS3Error(error, 'list', failure(timedOut)),
        );
        const count = listed.KeyCount ?? listed.Contents?.length ?? 0;
        const where = location.prefix ? `under '${location.prefix}'` : 'in the bucket';
        return {
          target,
          outcome: `S3 list ${where}: ${count === 0 ? 'no objects' : listed.IsTruncated ? 'objects found (listed 1)' : '1 object'}`,
          elapsedMs: performance.now() - started,
        };
      },
      list(options = {}) {
        const prefix = options.prefix ?? location.prefix;
        const pageSize = checkPageSize(options.pageSize);
        return {
          async *[Symbol.asyncIterator]() {
            let continuationToken: string | undefined;
            do {
              const page = await call(
                (abortSignal) =>
                  client.send(
                    new s3.ListObjectsV2Command({
                      Bucket: location.bucket,
                      Prefix: prefix || undefined,
                      MaxKeys: pageSize,
                      ...(continuationToken
                        ? { ContinuationToken: continuationToken }
                        : options.startAfter
                          ? { StartAfter: options.startAfter }
                          : {}),
                    }),
                    { abortSignal },
                  ),
                (error, timedOut) => classifyS3Error(error, `list '${prefix}'`, failure(timedOut)),
              );
              for (const item of page.Contents ?? [])
                if (item.Key !== undefined)
                  yield {
                    key: item.Key,
                    size: item.Size ?? 0,
                    modifiedAt: item.LastModified ?? new Date(0),
                    etag: item.ETag,
                  };
              continuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
            } while (continuationToken);
          },
        };
      },
      stat: (key) =>
        call(
          async (abortSignal) => {
            const head = await client.send(new s3.HeadObjectCommand({ Bucket: location.bucket, Key: key }), {
              abortSignal,
            });
            return {
              size: head.ContentLength ?? 0,
              modifiedAt: head.LastModified ?? new Date(0),
              etag: head.ETag,
              contentType: head.ContentType,
            };
          },
          onObject('stat', key),
        ),
      readFile: (key) =>
        call(
          async (abortSignal) => {
            const object = await client.send(new s3.GetObjectCommand({ Bucket: location.bucket, Key: key }), {
              abortSignal,
            });
            return Buffer.from(await object.Body!.transformToByteArray());
          },
          onObject('get', key),
        ),
      // No deadline on the stream itself: a large object may take longer than timeout_seconds to read.
      // The deadline covers getting the object's headers only (headersDeadline), not call()'s
      // AbortSignal.timeout, which the SDK's request handler would keep until the whole body is read.
      createReadStream: async (key) => {
        const deadline = headersDeadline(timeoutMs);
        let object: GetObjectCommandOutput;
        try {
          object = await call(
            (abortSignal) =>
              client.send(new s3.GetObjectCommand({ Bucket: location.bucket, Key: key }), { abortSignal }),
            onObject('get', key),
            deadline.signal,
          );
        } finally {
          deadline.disarm();
        }
        // The deadline can still have run out after the headers arrived but before send() resolved,
        // destroying the body: that stream error is the timeout, not a connection the server reset.
        return classifiedStream(object.Body as Readable, (error) =>
          classifyObjectError(error, 'read', key, failure(deadline.signal.aborted)),
        );
      },
      // The caller names the SDK's type (s3-objects.ts): this is that client.
      client: <Client>() => client as Client,
      async close() {
        client.destroy();
        httpsAgent.destroy();
        agents.httpAgent?.destroy();
        await tunnel?.close();
        await credential.close?.();
      },
    };
  },
});

function checkPageSize(pageSize: number | undefined): number {
  if (pageSize === undefined) return 1000;
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 1000)
    throw new ConfigurationError(`S3 list: pageSize must be a whole number from 1 to 1000`, {
      code: 'invalid_page_size',
    });
  return pageSize;
}
