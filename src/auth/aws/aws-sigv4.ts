import { importOptionalPackage } from '../../errors/index.js';
import type { AwsCredentialIdentity } from '../capabilities.js';
import { quietAwsSdkNodeVersionWarning } from './aws-sdk-warning.js';

/**
 * AWS Signature Version 4 for the requests connector-auth signs itself rather than through an AWS
 * SDK client: the rest source's requests to an HTTP API behind IAM (sources/aws-request-signing.ts),
 * and the GetCallerIdentity request that gcp_workload_identity hands Google as an EC2 instance's
 * identity (gcp-aws-subject-token.ts). The signing is the SDK's own (`@smithy/signature-v4` with the
 * SDK's Node hash), loaded at the first signer made, so nothing AWS loads for other methods.
 */

/** What needs the signer's packages, as a missing one's error says it. */
const SIGNING = 'AWS request signing (SigV4: an AWS auth_method with source rest, or gcp_workload_identity on AWS)';

export interface SignableRequest {
  method: string;
  /** Signed as it is: a caller that needs RFC 3986 form puts it in that form first. */
  url: URL;
  /** Lowercase names; `host` included (it is signed, and the HTTP client sends the URL's). */
  headers: Record<string, string>;
  body?: string | Uint8Array | undefined;
}

export interface SigV4Signer {
  /** The request's headers with Authorization, X-Amz-Date and, for a session, X-Amz-Security-Token added. */
  sign(request: SignableRequest, at: Date): Promise<Record<string, string>>;
}

export interface SigV4Options {
  service: string;
  region: string;
  /** Asked at each signing: a session renews its credentials before they end. */
  credentials: () => Promise<AwsCredentialIdentity>;
  /** Every service but S3 signs the path URI-encoded once more; S3 signs it as sent (default true). */
  uriEscapePath?: boolean;
  /** Add X-Amz-Content-Sha256 (the body's hash) to the signed headers (default true). */
  contentHashHeader?: boolean;
}

export async function sigv4Signer(o: SigV4Options): Promise<SigV4Signer> {
  quietAwsSdkNodeVersionWarning();
  const [{ SignatureV4 }, { Hash }] = await Promise.all([
    importOptionalPackage('@smithy/signature-v4', SIGNING, () => import('@smithy/signature-v4')),
    importOptionalPackage('@smithy/core', SIGNING, () => import('@smithy/core/serde')),
  ]);
  const signer = new SignatureV4({
    service: o.service,
    region: o.region,
    credentials: o.credentials,
    sha256: Hash.bind(null, 'sha256'),
    uriEscapePath: o.uriEscapePath ?? true,
    applyChecksum: o.contentHashHeader ?? true,
  });
  return {
    async sign({ method, url, headers, body }, at) {
      const query: Record<string, string | string[]> = {};
      for (const [name, value] of url.searchParams) {
        const before = query[name];
        query[name] = before === undefined ? value : Array.isArray(before) ? [...before, value] : [before, value];
      }
      const signed = await signer.sign(
        {
          method,
          protocol: url.protocol,
          hostname: url.hostname,
          ...(url.port ? { port: Number(url.port) } : {}),
          path: url.pathname,
          query,
          headers: { ...headers },
          body,
        },
        { signingDate: at },
      );
      return signed.headers;
    },
  };
}
