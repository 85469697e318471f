import { readFile } from 'node:fs/promises';
import { AuthenticationError, ConfigurationError, SourceUnreachableError } from '../../errors/index.js';
import { describeUrl, type HttpClient } from '../../network/index.js';
import type { AuthContext } from '../auth-method.js';
import { cachedAwsSession, type AwsSession } from '../aws/index.js';
import { credentialsOf, parseCredentialsDocument } from './aws-credentials-document.js';
import { createTokenHttpClient } from '../token-endpoint/index.js';

/**
 * The credentials of the IAM role of an ECS task, or of an EKS pod with Pod Identity, from the
 * container credentials endpoint the platform runs beside the workload:
 *
 *   ECS               GET http://169.254.170.2<AWS_CONTAINER_CREDENTIALS_RELATIVE_URI>
 *   EKS Pod Identity  GET http://169.254.170.23/v1/credentials   Authorization: <AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE's content>
 *
 * answered with `{AccessKeyId, SecretAccessKey, Token, Expiration, RoleArn}`. The URL (ECS puts a
 * per-task id in it) and the token file are the platform's, given in configuration.json; the file is
 * read again at each fetch because the platform rotates it, and its content is registered as a secret,
 * as are the credentials. They are kept in the TokenCache: one fetch per lifetime, renewed before the end.
 */

const NOT_IN_A_CONTAINER =
  'the container credentials endpoint answers only inside an ECS task or an EKS pod with Pod Identity; give it as the platform sets it (AWS_CONTAINER_CREDENTIALS_FULL_URI, or http://169.254.170.2 followed by AWS_CONTAINER_CREDENTIALS_RELATIVE_URI)';

export interface ContainerCredentialsOptions {
  url: URL;
  /** The file holding the Authorization header's value (EKS Pod Identity); none for ECS. */
  authorizationTokenFile: string | undefined;
  /** The credential, for messages. */
  description: string;
  context: AuthContext;
}

export function containerCredentialsSession(o: ContainerCredentialsOptions): AwsSession {
  const { context, description, url } = o;
  // Made at the first fetch; verified as any identity service is (system roots plus tls_ca_certificate).
  let http: Promise<HttpClient> | undefined;
  const client = () => (http ??= createTokenHttpClient(context.raw, context.common.timeout_seconds, context));
  const tokenKey = o.authorizationTokenFile ? 'container_authorization_token_file' : 'container_credentials_url';

  const authorization = async (): Promise<Record<string, string>> => {
    if (!o.authorizationTokenFile) return {};
    let token: string;
    try {
      token = (await readFile(o.authorizationTokenFile, 'utf8')).trim();
    } catch (error) {
      throw new ConfigurationError(
        `${description}: cannot read the authorization token from ${o.authorizationTokenFile} (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
        {
          code: 'container_authorization_token_unreadable',
          key: 'container_authorization_token_file',
          hint: "set 'container_authorization_token_file' to the file the platform writes the token to (on EKS, the pod's AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE)",
        },
      );
    }
    context.secrets.register('container_authorization_token', token);
    return { authorization: token };
  };

  return cachedAwsSession({
    description,
    noun: 'container credentials',
    context,
    release: async () => (await http?.catch(() => undefined))?.close(),
    fetch: async () => {
      const requestedAt = context.now();
      const headers = new Headers({ accept: 'application/json', ...(await authorization()) });
      const reply = await (
        await client()
      ).request(
        url,
        { method: 'GET', headers, redirect: 'manual' },
        { credential: description, urlKey: 'container_credentials_url', unreachableHint: NOT_IN_A_CONTAINER },
      );
      const [status, text] = [reply.status, await reply.text()];
      if (status === 401 || status === 403)
        throw new AuthenticationError(`${description}: ${describeUrl(url)} refused the request (HTTP ${status})`, {
          code: 'container_credentials_refused',
          key: tokenKey,
          hint:
            tokenKey === 'container_authorization_token_file'
              ? "check that 'container_authorization_token_file' is the pod's AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE and that the pod's service account has a Pod Identity association"
              : "EKS Pod Identity wants the pod's token: set 'container_authorization_token_file'; outside ECS and EKS, whatever answered is not the container credentials endpoint",
        });
      const document = status === 200 ? parseCredentialsDocument(text) : undefined;
      const issued = document && credentialsOf(document, requestedAt, context.secrets);
      if (!issued)
        throw new SourceUnreachableError(
          `${description}: ${describeUrl(url)} answered HTTP ${status} ${status === 200 ? 'without complete credentials' : 'instead of the credentials'}`,
          {
            code: 'container_credentials_error',
            key: 'container_credentials_url',
            hint: "give the URL as the platform sets it (ECS: http://169.254.170.2 followed by the task's AWS_CONTAINER_CREDENTIALS_RELATIVE_URI)",
          },
        );
      context.log.debug(
        `${description}: credentials ${issued.value.accessKeyId}${document?.RoleArn ? ` of ${String(document.RoleArn)}` : ''}, valid for ${Math.round(issued.lifetimeMs / 1000)}s`,
      );
      return issued;
    },
  });
}
