import type { AuthContext } from '../auth-method.js';
import { sigv4Signer } from '../aws/index.js';
import type { SubjectTokenReader } from './gcp-credential-configuration.js';
import type { AwsSubjectTokenSource } from './gcp-credential-source.js';
import { instanceMetadataSession } from '../metadata/index.js';

/**
 * The subject token of an EC2 instance for gcp_workload_identity (Google's "AWS" workload identity
 * provider): not a token but a request, AWS STS GetCallerIdentity signed with the instance role's
 * credentials, which Google's STS sends to AWS on the workload's behalf. AWS answers with the caller's
 * ARN (`arn:aws:sts::<account>:assumed-role/<role>/<instance id>`), which the pool provider maps to a
 * Google principal. The request never goes to AWS from here; its signature proves the role to Google
 * without the role's secret leaving the machine.
 *
 * As Google documents it (and its libraries build it): `POST` to `regional_cred_verification_url` for
 * the instance's region, signed with SigV4 for `sts` there, with `x-goog-cloud-target-resource` naming
 * the pool provider (the `audience`) among the signed headers, so that the signature is good for
 * that provider only; serialized as `{"url", "method", "headers": [{"key", "value"}, …]}` (headers in
 * name order) and URL-encoded.
 *
 * The role's credentials and the region come from the instance metadata service at the root of
 * `credential_source.url`, through the same session as aws_instance_profile (IMDSv2, one credentials
 * fetch per lifetime, renewed before the end). A token is built for each exchange: SigV4 signatures
 * are good for 15 minutes. It is registered as a secret, and so is its signature.
 */

const KEY = 'gcp_credential_configuration';

export function awsSubjectTokenReader(
  source: AwsSubjectTokenSource,
  audience: string,
  description: string,
  context: AuthContext,
): SubjectTokenReader {
  const imds = instanceMetadataSession({
    base: source.metadataBase,
    addressKey: KEY,
    onEc2: `check credential_source.url in '${KEY}' (the instance's own metadata service, http://169.254.169.254)`,
    elsewhere: `create the credential configuration for the platform the connector runs on (--credential-source-file or --credential-source-url), or use auth_method 'service_account_key'`,
    description,
    context,
  });
  return {
    async read() {
      // The region is read once (imds.region() keeps it); a signer is cheap, one per exchange.
      const region = await imds.region();
      const { sign } = await sigv4Signer({
        service: 'sts',
        region,
        credentials: () => imds.identity(),
        contentHashHeader: false,
      });
      const target = source.verificationUrl.replaceAll('{region}', region);
      const url = new URL(target);
      const headers = await sign(
        { method: 'POST', url, headers: { host: url.host, 'x-goog-cloud-target-resource': audience }, body: '' },
        new Date(context.now()),
      );
      const signature = /Signature=([0-9a-f]+)/.exec(headers.authorization ?? '')?.[1];
      if (signature) context.secrets.register('aws_signature', signature);
      const request = {
        url: target,
        method: 'POST',
        headers: Object.keys(headers)
          .sort()
          .map((key) => ({ key, value: headers[key]! })),
      };
      const token = encodeURIComponent(JSON.stringify(request));
      context.secrets.register('subject_token', token);
      return token;
    },
    close: () => imds.close(),
  };
}
