import { ConfigurationError, closestName } from '../errors/index.js';
import type { AuthMethod } from './auth-method.js';
import type { CapabilityName } from './capabilities.js';

/**
 * auth_method name → what its credential provides, and the file that implements it, imported only
 * when chosen. `provides` is stated here, not read from the method's file, so that matching a method
 * to a source (and listing the methods a source accepts) loads no method. Adding a method is one file
 * in its family's folder, one line here and its keys in config/key-catalogue.ts.
 */
interface BuiltInMethod {
  readonly provides: readonly CapabilityName[];
  readonly load: () => Promise<{ default: AuthMethod }>;
}

const BUILT_IN_METHODS = {
  basic: { provides: ['httpRequest'], load: () => import('./static/basic.js') },
  bearer: { provides: ['httpRequest'], load: () => import('./static/bearer.js') },
  api_key: { provides: ['httpRequest'], load: () => import('./static/api-key.js') },
  digest: { provides: ['httpRequest'], load: () => import('./static/digest.js') },
  mtls: { provides: ['clientCertificate'], load: () => import('./static/mtls.js') },
  password: { provides: ['password'], load: () => import('./static/password.js') },
  signed_url: { provides: ['signedUrl'], load: () => import('./static/signed-url.js') },
  ssh_key: { provides: ['sshKey'], load: () => import('./static/ssh-key.js') },
  oauth2_client_credentials: {
    provides: ['httpRequest', 'bearerToken'],
    load: () => import('./oauth/oauth2-client-credentials.js'),
  },
  // A person's delegated token is for the API it was granted for, not a database login.
  oauth2_refresh_token: { provides: ['httpRequest'], load: () => import('./oauth/oauth2-refresh-token.js') },
  jwt_bearer: { provides: ['httpRequest'], load: () => import('./signed/jwt-bearer.js') },
  oauth1: { provides: ['httpRequest'], load: () => import('./signed/oauth1.js') },
  service_account_key: { provides: ['httpRequest', 'bearerToken'], load: () => import('./gcp/service-account-key.js') },
  aws_access_key: { provides: ['awsKeys'], load: () => import('./aws/aws-access-key.js') },
  aws_web_identity: { provides: ['awsKeys'], load: () => import('./aws/aws-web-identity.js') },
  aws_instance_profile: { provides: ['awsKeys'], load: () => import('./metadata/aws-instance-profile.js') },
  aws_container_credentials: { provides: ['awsKeys'], load: () => import('./metadata/aws-container-credentials.js') },
  gcp_metadata: { provides: ['httpRequest', 'bearerToken'], load: () => import('./metadata/gcp-metadata.js') },
  gcp_workload_identity: {
    provides: ['httpRequest', 'bearerToken'],
    load: () => import('./gcp/gcp-workload-identity.js'),
  },
  azure_managed_identity: {
    provides: ['httpRequest', 'bearerToken'],
    load: () => import('./metadata/azure-managed-identity.js'),
  },
  // GSSAPI logins (postgres) and SPNEGO on HTTP requests (rest).
  kerberos: {
    provides: ['kerberos', 'httpRequest'],
    load: async () => ({ default: (await import('./kerberos/index.js')).kerberosMethod }),
  },
  // A login request (username, password) answered with a session token.
  session_token: { provides: ['httpRequest'], load: () => import('./session/session-token.js') },
} satisfies Record<string, BuiltInMethod>;
const METHODS: Record<string, BuiltInMethod> = BUILT_IN_METHODS;

/** A built-in auth method's name, as `auth_method` takes it. */
export type AuthMethodName = keyof typeof BUILT_IN_METHODS;

export const AUTH_METHOD_NAMES: readonly string[] = Object.keys(METHODS);

/** What a method's credential provides, without loading the method; undefined for an unknown name. */
export function capabilitiesOf(name: string): readonly CapabilityName[] | undefined {
  return METHODS[name]?.provides;
}

/** The methods whose credential provides at least one of `needs`, in this table's order. */
export function methodsProviding(needs: readonly CapabilityName[]): string[] {
  return AUTH_METHOD_NAMES.filter((name) => METHODS[name]!.provides.some((capability) => needs.includes(capability)));
}

export async function loadAuthMethod(name: string): Promise<AuthMethod> {
  const line = METHODS[name];
  if (!line) {
    // The methods are listed once, in the message; the hint names the key, as every other error's
    // does, with the method most likely meant.
    const near = closestName(name, AUTH_METHOD_NAMES);
    throw new ConfigurationError(
      `invalid configuration: key 'auth_method' names '${name}', which is not a known method; valid methods: ${AUTH_METHOD_NAMES.join(', ')}`,
      {
        code: 'unknown_auth_method',
        key: 'auth_method',
        hint: near
          ? `check 'auth_method': did you mean '${near}'?`
          : "check 'auth_method': set it to one of the methods listed",
      },
    );
  }
  return (await line.load()).default;
}
