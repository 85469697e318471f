import { z } from 'zod';
import { keys } from '../config/index.js';
import {
  HttpClient,
  guardPlainHttp,
  prepareSshTunnel,
  sshTunnelKeys,
  urlDestination,
  warnTlsUnverified,
} from '../network/index.js';
import { RestClient, awsRequestSigner, withTrailingSlash, type RequestSigner, type RestSource } from './rest/index.js';
import { defineSource } from './source-definition.js';

export { awsRefusalMessage, resolveUrl, statusError, type RestRequestInit, type RestSource } from './rest/index.js';

/**
 * A REST or HTTP API. `fetch` is what a connector's update() uses: paths join `base_url`, the
 * credential is applied, `timeout_seconds` bounds each request, a 401 triggers one retry with a
 * fresh credential where the method can refresh (OAuth), and a transient failure (408, 429, 500,
 * 502, 503, 504, a reset connection) of an idempotent request is asked again up to `max_retries`
 * times, as `Retry-After` says or with backoff. The probe is one GET of `probe_path`.
 *
 * With `ssh_tunnel_host`, connections to base_url's origin go through an SSH tunnel (an API reached
 * only through a bastion): the HTTP client dials the tunnel's listener, and the Host header, SNI and
 * certificate check stay base_url's host. Other origins (a token endpoint, an absolute URL) are
 * reached directly.
 *
 * With an AWS method (an access key, a role, the instance's or the task's own), every request to
 * base_url's origin is signed with SigV4 for `aws_service` in `aws_region` (aws-request-signing.ts):
 * an API behind IAM, such as API Gateway, OpenSearch or a Lambda function URL.
 */

const restKeys = z.object({
  base_url: keys.url(),
  probe_path: keys.textWithDefault(''),
  probe_expect_status: keys.statusList([200]),
  aws_service: keys.optionalText(),
  max_retries: keys.integer({ min: 0, max: 10, default: 3 }),
  ...sshTunnelKeys.shape,
});

export default defineSource({
  name: 'rest',
  tls: true,
  summary: 'REST or HTTP API: credentials on every request, probe = one GET of probe_path',
  keys: restKeys,
  // A credential on each request; else AWS keys that sign each (SigV4); else a client certificate
  // alone, which the HTTP client presents from the TLS settings.
  needs: ['httpRequest', 'awsKeys', 'clientCertificate'],
  keysFor: { awsKeys: ['aws_service'] },
  async connect(k, credential, context): Promise<RestSource> {
    const baseUrl = withTrailingSlash(k.base_url);
    if (credential.sendsSecret)
      guardPlainHttp({
        url: baseUrl,
        key: 'base_url',
        exposes: `the ${credential.description}`,
        allowed: context.common.allow_plain_http,
        log: context.log,
      });
    const tls = await context.tls.read();
    if (!tls.verify) warnTlsUnverified(context.log, baseUrl.host, 'the credential');
    const timeoutSeconds = context.common.timeout_seconds;
    const tunnel = await prepareSshTunnel(k, urlDestination(baseUrl, 'base_url'), {
      timeoutSeconds,
      log: context.log,
      secrets: context.secrets,
    });
    const http = new HttpClient({ tls, timeoutSeconds, route: tunnel });
    // AWS keys sign each request (SigV4), rather than adding a header.
    const signer: RequestSigner | undefined =
      !credential.httpRequest && credential.awsKeys
        ? await awsRequestSigner(credential.awsKeys, baseUrl, k.aws_service, context.now)
        : undefined;
    if (signer)
      context.log.debug(
        `${credential.description}: requests to ${baseUrl.origin} are signed with ${signer.description}`,
      );

    return new RestClient({
      baseUrl,
      credential,
      signer,
      http,
      tls,
      tunnel,
      timeoutSeconds,
      maxRetries: k.max_retries,
      probe: { path: k.probe_path, expectStatus: k.probe_expect_status },
      secrets: context.secrets,
      log: context.log,
    });
  },
});
