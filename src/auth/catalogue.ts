import { ConfigurationError, closestName } from '../errors/index.js';
import type { AuthMethod } from './auth-method.js';

/**
 * auth_method name → the file that implements it, imported only when chosen. Adding a method is one
 * file under `methods/`, one line here and its keys in config/key-catalogue.ts.
 */
const METHODS: Record<string, () => Promise<{ default: AuthMethod }>> = {
  basic: () => import('./methods/basic.js'),
  bearer: () => import('./methods/bearer.js'),
  api_key: () => import('./methods/api-key.js'),
  mtls: () => import('./methods/mtls.js'),
  password: () => import('./methods/password.js'),
  signed_url: () => import('./methods/signed-url.js'),
  ssh_key: () => import('./methods/ssh-key.js'),
  oauth2_client_credentials: () => import('./methods/oauth2-client-credentials.js'),
  oauth2_refresh_token: () => import('./methods/oauth2-refresh-token.js'),
  service_account_key: () => import('./methods/service-account-key.js'),
  aws_access_key: () => import('./methods/aws-access-key.js'),
  aws_web_identity: () => import('./methods/aws-web-identity.js'),
  aws_instance_profile: () => import('./methods/aws-instance-profile.js'),
  aws_container_credentials: () => import('./methods/aws-container-credentials.js'),
  gcp_metadata: () => import('./methods/gcp-metadata.js'),
  gcp_workload_identity: () => import('./methods/gcp-workload-identity.js'),
  azure_managed_identity: () => import('./methods/azure-managed-identity.js'),
  kerberos: async () => ({ default: (await import('./kerberos/index.js')).kerberosMethod }),
};

export const AUTH_METHOD_NAMES: readonly string[] = Object.keys(METHODS);

export async function loadAuthMethod(name: string): Promise<AuthMethod> {
  const load = METHODS[name];
  if (!load) {
    // The methods are listed once, in the message; the hint is the one most likely meant.
    const near = closestName(name, AUTH_METHOD_NAMES);
    throw new ConfigurationError(
      `invalid configuration: auth_method '${name}' is not known; valid methods: ${AUTH_METHOD_NAMES.join(', ')}`,
      {
        code: 'unknown_auth_method',
        key: 'auth_method',
        hint: near ? `did you mean '${near}'?` : "set 'auth_method' to one of the methods listed",
      },
    );
  }
  return (await load()).default;
}
