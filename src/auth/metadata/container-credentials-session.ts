import { readFile } from 'node:fs/promises';
import { AuthenticationError, ConfigurationError, SourceUnreachableError } from '../../errors/index.js';
import { describeUrl } from '../../network/index.js';
import type { AuthContext } from '../auth-method.js';
import type { AwsSession } from '../aws/index.js';
import { awsDocumentSession, parseCredentialsDocument } from './aws-document-session.js';

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
 * as are the credentials. The session is aws-document-session.ts's; here, how the document is fetched.
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

  return awsDocumentSession({
    description,
    noun: 'container credentials',
    context,
    urlKey: 'container_credentials_url',
    unreachableHint: NOT_IN_A_CONTAINER,
    fetchDocument: async (ask) => {
      const { status, text } = await ask('GET', url, { accept: 'application/json', ...(await authorization()) });
      if (status === 401 || status === 403)
        throw new AuthenticationError(`${description}: ${describeUrl(url)} refused the request (HTTP ${status})`, {
          code: 'container_credentials_refused',
          key: tokenKey,
          hint:
            tokenKey === 'container_authorization_token_file'
              ? "check that 'container_authorization_token_file' is the pod's AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE and that the pod's service account has a Pod Identity association"
              : "EKS Pod Identity wants the pod's token: set 'container_authorization_token_file'; outside ECS and EKS, whatever answered is not the container credentials endpoint",
        });
      const incomplete = () =>
        new SourceUnreachableError(
          `${description}: ${describeUrl(url)} answered HTTP ${status} ${status === 200 ? 'without complete credentials' : 'instead of the credentials'}`,
          {
            code: 'container_credentials_error',
            key: 'container_credentials_url',
            hint: "give the URL as the platform sets it (ECS: http://169.254.170.2 followed by the task's AWS_CONTAINER_CREDENTIALS_RELATIVE_URI)",
          },
        );
      const document = status === 200 ? parseCredentialsDocument(text) : undefined;
      if (!document) throw incomplete();
      return { document, whose: document.RoleArn ? ` of ${String(document.RoleArn)}` : '', incomplete };
    },
  });
}
