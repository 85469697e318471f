import { ConfigurationError } from '../../errors/index.js';

/**
 * The `kerberos` package (mongodb-js: MIT Kerberos' GSS-API through an N-API addon), loaded only by
 * a configuration whose auth_method is kerberos. It is an optional dependency: it builds against
 * libkrb5-dev, and a machine without those headers still installs connector-auth, so its absence is
 * one configuration error saying what to install.
 */

/**
 * The part of the package this method uses, in our own words: the package may be absent (its build
 * needs headers a machine may lack), and the project must still compile there.
 */
export interface KerberosModule {
  readonly GSS_MECH_OID_KRB5: number;
  readonly GSS_MECH_OID_SPNEGO: number;
  initializeClient(
    service: string,
    options: { principal?: string; mechOID?: number; gssFlag?: number },
  ): Promise<{ step(challenge: string): Promise<string | null>; readonly contextComplete: boolean }>;
}

// A specifier TypeScript does not resolve, so a machine without the optional package still compiles.
const PACKAGE: string = 'kerberos';

let loaded: Promise<KerberosModule> | undefined;

export function loadKerberos(): Promise<KerberosModule> {
  loaded ??= (import(PACKAGE) as Promise<KerberosModule | { default: KerberosModule }>).then(
    (module) => ((module as { default?: KerberosModule }).default ?? module) as KerberosModule,
    (error: unknown) => {
      loaded = undefined;
      throw new ConfigurationError(
        "auth_method 'kerberos' needs the optional package `kerberos`, which is not installed or not built here",
        {
          code: 'kerberos_library_missing',
          key: 'auth_method',
          hint: 'install MIT Kerberos headers (Debian/Ubuntu: apt-get install libkrb5-dev; RHEL: krb5-devel), then run `npm rebuild kerberos` (or `npm install kerberos`)',
          cause: error,
        },
      );
    },
  );
  return loaded;
}
