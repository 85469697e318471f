import { overdueAgeDays } from '../../auth/index.js';
import { keys, type RawConfiguration } from '../../config/index.js';
import type { SecretRegistry } from '../../secrets/index.js';
import type { Finding } from './finding.js';

/** Settings that run but trade safety away, each a choice someone made once and may have forgotten. */
const RELAXED_CHECKS: Array<{ key: string; what: string }> = [
  {
    key: 'tls_skip_verify',
    what: 'TLS verification is off: any server can pose as the source and read the credentials',
  },
  {
    key: 'ssh_skip_host_key_check',
    what: 'SSH host key checking is off: any server can pose as the source and read the credentials',
  },
  { key: 'allow_plain_http', what: 'credentials may be sent over plain http://, readable on the network' },
  {
    key: 'kerberos_skip_mutual_authentication',
    what: "an HTTP server's SPNEGO proof is not checked: any server at base_url can pose as the source and serve made-up data",
  },
];

/** Values that turn encryption off altogether: chosen by name (the sources warn on every run too). */
const PLAIN_TEXT_CHOICES: Array<{ key: string; value: string; what: string; hint: string }> = [
  {
    key: 'ftp_tls',
    value: 'none',
    what: 'plain FTP: the password and every file cross the network in clear',
    hint: "set 'ftp_tls' to explicit (the default) or implicit",
  },
  {
    key: 'mysql_tls',
    value: 'none',
    what: 'the database connection is not encrypted: the login exchange, queries and results cross the network in clear',
    hint: "set 'mysql_tls' to required (the default)",
  },
];

/**
 * What the configuration itself says about its credentials: settings that relax verification, a
 * credential past its rotation age or without an issue date, secrets too short to redact.
 * `credential` is known once the configuration validates: its method, that method's rotation rule
 * and `credential_issued_at` as the configuration reads it.
 */
export function configurationFindings(options: {
  raw: RawConfiguration;
  registry: SecretRegistry;
  /** `rotationDays` null: the method keeps no long-lived secret, so there is no rotation to track. */
  credential: CredentialFacts | undefined;
  unknownKeys: readonly string[];
  now: number;
}): Finding[] {
  return [
    ...relaxedFindings(options.raw),
    ...[...options.registry.tooShort].map(tooShortFinding),
    ...options.unknownKeys.map(unknownKeyFinding),
    ...rotationFindings(options.credential, options.now),
  ];
}

/** A validated configuration's credential: its method, the method's rotation rule, its issue date. */
interface CredentialFacts {
  method: string;
  rotationDays: number | null;
  issuedAt: Date | undefined;
}

/** Verification relaxed, then encryption turned off. */
function relaxedFindings(raw: RawConfiguration): Finding[] {
  const findings: Finding[] = [];
  for (const { key, what } of RELAXED_CHECKS)
    // Read as the configuration reads it: "yes", "1" and "on" turn the check off too.
    if (keys.boolean(false).safeParse(raw[key]).data === true)
      findings.push({
        severity: 'warning',
        check: 'verification-off',
        message: `${key} is true: ${what}`,
        key,
        hint: `remove '${key}' and trust the server properly`,
      });
  for (const { key, value, what, hint } of PLAIN_TEXT_CHOICES)
    if (raw[key]?.trim().toLowerCase() === value)
      findings.push({
        severity: 'warning',
        check: 'encryption-off',
        message: `${key} is ${value}: ${what}`,
        key,
        hint,
      });
  return findings;
}

function tooShortFinding(key: string): Finding {
  return {
    severity: 'warning',
    check: 'secret-too-short',
    message: `the value of '${key}' is too short to be redacted from logs safely`,
    key,
    hint: 'a real credential is longer; check the value',
  };
}

function unknownKeyFinding(key: string): Finding {
  return {
    severity: 'warning',
    check: 'unknown-key',
    message: `configuration key '${key}' is not read by any schema (a typo?)`,
    key,
  };
}

/** A credential with a rotation rule: its issue date missing, or its age past the rule. */
function rotationFindings(credential: CredentialFacts | undefined, now: number): Finding[] {
  const rotationDays = credential?.rotationDays;
  if (credential === undefined || rotationDays == null) return [];
  if (!credential.issuedAt)
    return [
      {
        severity: 'note',
        check: 'credential-age-unknown',
        message: `no credential_issued_at: runs cannot warn when the ${credential.method} credential is due for rotation (every ${rotationDays} days)`,
        key: 'credential_issued_at',
        hint: "set 'credential_issued_at' to the date the credential was issued (YYYY-MM-DD)",
      },
    ];
  const ageDays = overdueAgeDays(credential.issuedAt, rotationDays, now);
  if (ageDays === undefined) return [];
  return [
    {
      severity: 'warning',
      check: 'credential-due-for-rotation',
      message: `the ${credential.method} credential is ${ageDays} days old; the rule for it is every ${rotationDays} days`,
      key: 'credential_issued_at',
      hint: "rotate the credential, then update 'credential_issued_at'",
    },
  ];
}
