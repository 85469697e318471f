import { ConfigurationError, closestName } from '../errors/index.js';
import type { AuthMethod } from './auth-method.js';

/**
 * auth_method name → the file that implements it, imported only when chosen. Adding a method is one
 * file under `methods/`, one line here and its keys in config/key-catalogue.ts.
 */
const METHODS: Record<string, () => Promise<{ default: AuthMethod }>> = {
  basic: () => import('./static/basic.js'),
  bearer: () => import('./static/bearer.js'),
  api_key: () => import('./static/api-key.js'),
  mtls: () => import('./static/mtls.js'),
  password: () => import('./static/password.js'),
  signed_url: () => import('./static/signed-url.js'),
  ssh_key: () => import('./static/ssh-key.js'),
  oauth2_client_credentials: () => import('./oauth/oauth2-client-credentials.js'),
  oauth2_refresh_token: () => import('./oauth/oauth2-refresh-token.js'),
  service_account_key: () => import('./gcp/service-account-key.js'),
  aws_access_key: () => import('./aws/aws-access-key.js'),
  aws_web_identity: () => import('./aws/aws-web-identity.js'),
  aws_instance_profile: () => import('./metadata/aws-instance-profile.js'),
  aws_container_credentials: () => import('./metadata/aws-container-credentials.js'),
  gcp_metadata: () => import('./metadata/gcp-metadata.js'),
  gcp_workload_identity: () => import('./gcp/gcp-workload-identity.js'),
  azure_managed_identity: () => import('./metadata/azure-managed-identity.js'),
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
