import { X509Certificate, createHash, randomUUID } from 'node:crypto';

/**
 * Microsoft Entra ID's check of a certificate credential, as a client sees it: an app registration
 * holds certificates (their public keys), and a client assertion (private_key_jwt) names the one it
 * was signed with by thumbprint in its header (`x5t#S256`, or `x5t`, SHA-1), not by `kid`. The
 * assertion must be signed by that certificate's key, be for this token endpoint (`aud`), name the
 * client as `iss` and `sub`, and be within its validity. Refusals are `invalid_client` with Entra's
 * AADSTS codes: 700027 (the key was not found, or the signature fails), 700024 (time range),
 * 700023 (audience), 700021 (issuer or subject).
 *
 * Entra cannot run here and oidc-provider knows clients by JWKS, not by certificate thumbprint; the
 * oidc-provider peer's front runs this check and, when it passes, lets the request reach the
 * provider authenticated as the app (as for federated credentials, workload-federation.ts).
 */

export interface CertificateCredentialCheck {
  /** The assertion checked as Entra would: undefined when it passes, else the error body. */
  verify(assertion: string): Promise<{ error: string; error_description: string } | undefined>;
}

export async function certificateCredentialCheck(options: {
  clientId: string;
  certificates: string[];
  tokenUrl: string;
  now?: () => number;
}): Promise<CertificateCredentialCheck> {
  const jose = await import('jose');
  const now = options.now ?? Date.now;
  const registered = options.certificates.map((pem) => {
    const certificate = new X509Certificate(pem);
    const thumbprint = (algorithm: 'sha1' | 'sha256') =>
      createHash(algorithm).update(certificate.raw).digest('base64url');
    return { key: certificate.publicKey, x5t: thumbprint('sha1'), x5tS256: thumbprint('sha256') };
  });
  const refused = (code: string, text: string) => ({
    error: 'invalid_client',
    error_description: `${code}: ${text} Trace ID: ${randomUUID()}`,
  });
  const hex = (base64url: string | undefined) =>
    base64url ? Buffer.from(base64url, 'base64url').toString('hex').toUpperCase() : 'Not available';

  return {
    async verify(assertion) {
      let header: Record<string, unknown>;
      try {
        header = jose.decodeProtectedHeader(assertion) as Record<string, unknown>;
        jose.decodeJwt(assertion);
      } catch {
        return refused('AADSTS50027', 'JWT token is invalid or malformed.');
      }
      const byS256 =
        typeof header['x5t#S256'] === 'string' ? registered.find((c) => c.x5tS256 === header['x5t#S256']) : undefined;
      const bySha1 = typeof header.x5t === 'string' ? registered.find((c) => c.x5t === header.x5t) : undefined;
      const certificate = byS256 ?? bySha1;
      if (!certificate) {
        const shown = hex((header['x5t#S256'] ?? header.x5t) as string | undefined);
        return refused(
          'AADSTS700027',
          `Client assertion contains an invalid signature. [Reason - The key was not found., Thumbprint of key used by client: '${shown}', Please visit the Azure Portal, Graph Explorer or directly use MS Graph to see configured keys for app Id '${options.clientId}'.]`,
        );
      }
      let claims: Record<string, unknown>;
      try {
        ({ payload: claims } = await jose.jwtVerify(assertion, certificate.key, {
          algorithms: ['RS256', 'PS256', 'ES256'],
          currentDate: new Date(now()),
          clockTolerance: 300,
        }));
      } catch (error) {
        if (error instanceof jose.errors.JWTExpired || error instanceof jose.errors.JWTClaimValidationFailed)
          return refused('AADSTS700024', 'Client assertion is not within its valid time range.');
        return refused('AADSTS700027', 'Client assertion failed signature validation.');
      }
      const aud = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
      if (!aud.includes(options.tokenUrl))
        return refused(
          'AADSTS700023',
          `Client assertion audience claim does not match Realm issuer. Review the documentation at https://learn.microsoft.com/entra/identity-platform/certificate-credentials .`,
        );
      if (claims.iss !== options.clientId || claims.sub !== options.clientId)
        return refused('AADSTS700021', "Client assertion application identifier doesn't match 'client_id' parameter.");
      return undefined;
    },
  };
}
