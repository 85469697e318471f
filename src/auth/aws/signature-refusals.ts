import { AuthenticationError } from '../../errors/index.js';

/**
 * The refusals every AWS service gives a SigV4-signed request alike, said alike whichever service
 * gave them: a secret that is not the access key's, and a clock too far from the service's. `failed`
 * is "<what was attempted> failed", `said` the service's own code and message.
 */

export interface SignatureRefusal {
  /** The service's code prefix and name: `sts`/STS, `s3`/S3. */
  readonly service: { readonly code: 'sts' | 's3'; readonly name: string };
  readonly failed: string;
  readonly said: string;
  readonly cause: unknown;
}

export function secretNotTheKeys(refusal: SignatureRefusal, signer: string): AuthenticationError {
  return new AuthenticationError(
    `${refusal.failed}: the request signature did not match: 'aws_secret_access_key' is not the secret of ${signer} (${refusal.said})`,
    {
      code: `${refusal.service.code}_signature_mismatch`,
      key: 'aws_secret_access_key',
      hint: "check 'aws_secret_access_key': it must be the secret issued with 'aws_access_key_id'",
      cause: refusal.cause,
    },
  );
}

export function clockTooFarOff(refusal: SignatureRefusal): AuthenticationError {
  const { name } = refusal.service;
  return new AuthenticationError(
    `${refusal.failed}: this machine's clock is too far from ${name}'s for a signature to be accepted (${refusal.said})`,
    {
      code: `${refusal.service.code}_clock_skew`,
      key: 'aws_access_key_id',
      hint: `set this machine's clock right (NTP); ${name} accepts signatures within 15 minutes of its own time`,
      cause: refusal.cause,
    },
  );
}
