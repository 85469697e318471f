import { quietAwsSdkNodeVersionWarning } from '../../auth/index.js';
import { ConfigurationError, importOptionalPackage } from '../../errors/index.js';
import { guardPlainHttp, prepareSshTunnel, urlDestination, warnTlsUnverified } from '../../network/index.js';
import { defineSource, type SourceContext } from '../source-definition.js';
import { S3Connection } from './s3-connection.js';
import type { S3Source } from './s3-objects.js';
import { DEFAULT_REGION, describeLocation, s3Keys, type S3Location } from './s3-settings.js';

/**
 * An S3 bucket (AWS, or any S3-compatible server through `endpoint`), through the AWS SDK's S3
 * client, imported by `connect`. The probe lists at most one object under `prefix`: it proves the
 * key, its signature, the bucket and the permission to list it, in one request. The client stays
 * for the connector's update(), which gets the same small surface as the sftp source: list, stat,
 * read an object whole or as a stream (s3-connection.ts).
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
    const location: S3Location = {
      bucket: k.bucket,
      prefix: k.prefix,
      region: k.region?.trim() || credential.awsKeys.region || DEFAULT_REGION,
      endpoint: k.endpoint,
    };
    if (location.endpoint) guardEndpoint(location.endpoint, context);
    const tls = await context.tls.read();
    if (!tls.verify)
      warnTlsUnverified(
        context.log,
        `S3 at ${location.endpoint?.host ?? `s3.${location.region}.amazonaws.com`}`,
        'the signed requests and the data',
      );
    const url = bucketUrl(location);
    if (k.ssh_tunnel_host && !location.endpoint) refuseTunnelToAws();
    const tunnel = await prepareSshTunnel(k, urlDestination(url, 'endpoint'), {
      timeoutSeconds: context.common.timeout_seconds,
      log: context.log,
      secrets: context.secrets,
    });
    const target = describeLocation(location) + (tunnel ? ` via ${tunnel.bastion}` : '');
    quietAwsSdkNodeVersionWarning();
    const sdk = await importOptionalPackage('@aws-sdk/client-s3', "source 's3'", () => import('@aws-sdk/client-s3'));
    const timeoutSeconds = context.common.timeout_seconds;
    return new S3Connection({ location, target, credential, timeoutSeconds, tls, url, tunnel, sdk });
  },
});

/** Plain http to an S3-compatible endpoint exposes the data and replayable signed requests. */
function guardEndpoint(endpoint: URL, context: SourceContext): void {
  guardPlainHttp({
    url: endpoint,
    key: 'endpoint',
    exposes: "the bucket's data and replayable signed requests",
    allowed: context.common.allow_plain_http,
    log: context.log,
  });
}

/** Path-style at an S3-compatible endpoint; AWS's own host for the bucket's region otherwise. */
function bucketUrl(location: S3Location): URL {
  return location.endpoint
    ? new URL(`${location.endpoint.origin}/${location.bucket}/`)
    : new URL(`https://s3.${location.region}.amazonaws.com/${location.bucket}/`);
}

/**
 * Through a bastion: an S3-compatible server at `endpoint`, one origin that the bastion reaches.
 * AWS itself is addressed by virtual-hosted bucket names, not one host a tunnel can be set up for.
 */
function refuseTunnelToAws(): never {
  throw new ConfigurationError(
    `invalid configuration for the s3 source: an SSH tunnel needs 'endpoint', the S3-compatible server behind the bastion`,
    {
      code: 'ssh_tunnel_needs_endpoint',
      key: 'endpoint',
      hint: "set 'endpoint' to the server as the bastion reaches it, or remove 'ssh_tunnel_host'",
    },
  );
}
