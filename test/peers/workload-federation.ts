import { generateKeyPairSync, randomUUID } from 'node:crypto';

/**
 * Workload identity federation as Microsoft Entra ID documents it for the client credentials grant:
 * the client authenticates with `client_assertion`, a JWT another issuer signed for the workload (a
 * Kubernetes cluster's service account token on AKS), and the app registration trusts it through a
 * federated identity credential: the token's `iss`, `sub` and `aud` must equal the credential's, its
 * signature must verify with the issuer's keys, and it must be inside its validity. Refusals are
 * `invalid_client` with Entra's AADSTS codes (70021 no matching federated credential, 700024 not
 * within its valid time range, 700027 signature).
 *
 * Entra cannot run here; oidc-provider has no federated credentials. So the oidc-provider peer's
 * front server runs this check and, when it passes, forwards the request to the real provider
 * authenticated as the app itself (whose secret only the peer knows): the access token the test
 * gets is oidc-provider's.
 *
 * The issuer is the peer's own "cluster": an RSA key that signs service account tokens, as the
 * kubelet's projected tokens are RS256.
 */

export const FEDERATED_AUDIENCE = 'api://AzureADTokenExchange';

export interface WorkloadIssuer {
  /** The cluster's issuer URL, as a federated credential names it. */
  issuer: string;
  /** The service account the federated credential trusts. */
  subject: string;
  /** A service account token as the kubelet projects it: RS256, `kid`, an hour by default. */
  token(claims?: {
    subject?: string;
    audience?: string;
    issuer?: string;
    issuedAt?: number;
    lifetimeSeconds?: number;
    foreignKey?: boolean;
  }): Promise<string>;
}

export interface FederationCheck {
  issuer: WorkloadIssuer;
  /** The issuer's public keys (its JWKS), for a relying party that checks the tokens itself. */
  keys: ReturnType<typeof import('jose').createLocalJWKSet>;
  /** The client's assertion checked as Entra would: undefined when it passes, else the error body. */
  verify(assertion: string): Promise<{ error: string; error_description: string } | undefined>;
}

export async function workloadFederation(now: () => number = Date.now): Promise<FederationCheck> {
  const jose = await import('jose');
  const issuerUrl = 'https://oidc.cluster-1.peer.test/';
  const subject = 'system:serviceaccount:connectors:sync';
  const keyId = randomUUID();
  const make = () => generateKeyPairSync('rsa', { modulusLength: 2048 });
  const signing = make();
  // Another cluster's key under the same key id: a token it signs fails the signature check.
  const foreign = make();
  const jwks = jose.createLocalJWKSet({
    keys: [{ ...(signing.publicKey.export({ format: 'jwk' }) as object), kid: keyId, alg: 'RS256' }],
  });

  const issuer: WorkloadIssuer = {
    issuer: issuerUrl,
    subject,
    async token(claims = {}) {
      const iat = claims.issuedAt ?? Math.floor(now() / 1000);
      return new jose.SignJWT({ 'kubernetes.io': { namespace: 'connectors', serviceaccount: { name: 'sync' } } })
        .setProtectedHeader({ alg: 'RS256', kid: keyId })
        .setIssuer(claims.issuer ?? issuerUrl)
        .setSubject(claims.subject ?? subject)
        .setAudience(claims.audience ?? FEDERATED_AUDIENCE)
        .setIssuedAt(iat)
        .setNotBefore(iat)
        .setExpirationTime(iat + (claims.lifetimeSeconds ?? 3600))
        .sign(claims.foreignKey ? foreign.privateKey : signing.privateKey);
    },
  };

  const refused = (code: string, text: string) => ({
    error: 'invalid_client',
    error_description: `${code}: ${text} Trace ID: ${randomUUID()}`,
  });

  return {
    issuer,
    keys: jwks,
    async verify(assertion) {
      let claims: Record<string, unknown>;
      try {
        claims = jose.decodeJwt(assertion);
      } catch {
        return refused('AADSTS50027', 'JWT token is invalid or malformed.');
      }
      const aud = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
      if (claims.iss !== issuerUrl || claims.sub !== subject || !aud.includes(FEDERATED_AUDIENCE)) {
        return refused(
          'AADSTS70021',
          `No matching federated identity record found for presented assertion. Assertion Issuer: '${String(claims.iss)}'. Assertion Subject: '${String(claims.sub)}'. Assertion Audience: '${aud.join(',')}'.`,
        );
      }
      try {
        await jose.jwtVerify(assertion, jwks, {
          issuer: issuerUrl,
          subject,
          audience: FEDERATED_AUDIENCE,
          currentDate: new Date(now()),
          clockTolerance: 300,
        });
      } catch (error) {
        if (error instanceof jose.errors.JWTExpired || error instanceof jose.errors.JWTClaimValidationFailed)
          return refused('AADSTS700024', 'Client assertion is not within its valid time range.');
        return refused('AADSTS700027', 'Client assertion failed signature validation.');
      }
      return undefined;
    },
  };
}
