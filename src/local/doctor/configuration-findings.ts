import type { RawConfiguration } from '../../config/index.js';
import type { SecretRegistry } from '../../secrets/index.js';
import type { Finding } from './finding.js';

const DAY_MS = 86_400_000;

/** Settings that run but trade safety away, each a choice someone made once and may have forgotten. */
const RELAXED_CHECKS: Array<{ key: string; what: string }> = [
  { key: 'tls_skip_verify', what: "TLS verification is off: any server can pose as the source and read the credentials" },
  { key: 'ssh_skip_host_key_check', what: "SSH host key checking is off: any server can pose as the source and read the credentials" },
  { key: 'allow_plain_http', what: 'credentials may be sent over plain http://, readable on the network' },
];

/**
 * What the configuration itself says about its credentials: settings that relax verification, a
 * credential past its rotation age or without an issue date, secrets too short to redact.
 * `rotationDays` is the auth method's rule (90 for keys and tokens, 30 for service account keys).
 */
export function configurationFindings(options: {
  raw: RawConfiguration;
  registry: SecretRegistry;
  authMethod: string | undefined;
  rotationDays: number | undefined;
  unknownKeys: readonly string[];
  now: number;
}): Finding[] {
  const { raw } = options;
  const findings: Finding[] = [];
  for (const { key, what } of RELAXED_CHECKS)
    if (raw[key]?.trim().toLowerCase() === 'true')
      findings.push({ severity: 'warning', check: 'verification-off', message: `${key} is true: ${what}`, key, hint: `remove '${key}' and trust the server properly` });

  for (const key of options.registry.tooShort)
    findings.push({
      severity: 'warning',
      check: 'secret-too-short',
      message: `the value of '${key}' is too short to be redacted from logs safely`,
      key,
      hint: 'a real credential is longer; check the value',
    });

  for (const key of options.unknownKeys)
    findings.push({ severity: 'warning', check: 'unknown-key', message: `configuration key '${key}' is not read by any schema (a typo?)`, key });

  if (options.authMethod !== undefined && options.rotationDays !== undefined) {
    const issued = raw.credential_issued_at ? Date.parse(raw.credential_issued_at) : Number.NaN;
    if (Number.isNaN(issued))
      findings.push({
        severity: 'note',
        check: 'credential-age-unknown',
        message: `no credential_issued_at: runs cannot warn when the ${options.authMethod} credential is due for rotation (every ${options.rotationDays} days)`,
        key: 'credential_issued_at',
        hint: "set 'credential_issued_at' to the date the credential was issued (YYYY-MM-DD)",
      });
    else {
      const ageDays = Math.floor((options.now - issued) / DAY_MS);
      if (ageDays > options.rotationDays)
        findings.push({
          severity: 'warning',
          check: 'credential-due-for-rotation',
          message: `the ${options.authMethod} credential is ${ageDays} days old; the rule for it is every ${options.rotationDays} days`,
          key: 'credential_issued_at',
          hint: "rotate the credential, then update 'credential_issued_at'",
        });
    }
  }
  return findings;
}
