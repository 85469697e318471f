import { rotationDaysOf } from '../../auth/index.js';
import {
  isPublicDemoValue,
  isSecretKey,
  readConfiguration,
  readConfigurationFile,
  type RawConfiguration,
} from '../../config/index.js';
import { ConnectorAuthError } from '../../errors/index.js';
import { silentLogger } from '../../log/index.js';
import { SecretRegistry } from '../../secrets/index.js';
import { checkConfiguration } from '../check-project.js';
import { projectPaths } from '../project-paths.js';
import { configurationFindings } from './configuration-findings.js';
import { fileModeFindings } from './file-mode-findings.js';
import { bySeverity, shown, type Finding } from './finding.js';
import { gitFindings } from './git-findings.js';
import { secretDefaultFindings } from './secret-default-findings.js';
import { secretScanFindings, stateFindings } from './secret-scan-findings.js';

export interface DoctorReport {
  project: string;
  configuration: string;
  /** Errors first, then warnings, then notes. */
  findings: Finding[];
  /** True when nothing of severity `error` was found. */
  healthy: boolean;
}

/**
 * `connector-auth doctor`: the project's credential hygiene, offline. Each check is its own file;
 * this runs them all and keeps going when one fails, so one report shows everything to fix.
 * Secrets are matched through a registry of their own here (every derived form), and no finding
 * carries a value: only keys, files and lines.
 */
export async function doctorProject(
  options: { project?: string; configurationPath?: string; now?: number } = {},
): Promise<DoctorReport> {
  const paths = projectPaths(options.project, options.configurationPath);
  const findings: Finding[] = [];
  const raw = await readRaw(paths.configuration, findings);
  const checked = raw && (await validated(paths, findings));
  const registry = new SecretRegistry();
  if (raw) findings.push(...registerAndReview(raw, checked, registry, options.now ?? Date.now()));
  findings.push(...(await projectFindings(paths, raw, registry)));
  findings.sort(bySeverity);
  return {
    project: paths.project,
    configuration: paths.configuration,
    findings,
    healthy: !findings.some((f) => f.severity === 'error'),
  };
}

type Paths = ReturnType<typeof projectPaths>;
type Checked = Awaited<ReturnType<typeof checkConfiguration>>;

/** The configuration file as written, or a finding saying why it cannot be read. */
async function readRaw(path: string, findings: Finding[]): Promise<RawConfiguration | undefined> {
  try {
    return await readConfigurationFile(path);
  } catch (error) {
    findings.push(asFinding(error, 'configuration-unreadable'));
    return undefined;
  }
}

/** The configuration validated, or a finding saying why it is invalid. */
async function validated(paths: Paths, findings: Finding[]): Promise<Checked | undefined> {
  try {
    // Silent: what validation would log (an old credential, verification off) is reported as findings below.
    return await checkConfiguration({
      project: paths.project,
      configurationPath: paths.configuration,
      log: silentLogger,
    });
  } catch (error) {
    findings.push(asFinding(error, 'configuration-invalid'));
    return undefined;
  }
}

/**
 * The configuration read again into doctor's own `registry` (the scans below match its secrets),
 * and the findings about its values: public demo values noted, then the configuration's checks.
 */
function registerAndReview(
  raw: RawConfiguration,
  checked: Checked | undefined,
  registry: SecretRegistry,
  now: number,
): Finding[] {
  // The keys validation found secret (the connector's own among them), else the catalogue's.
  const connectorSecretKeys = new Set(checked?.report.secretKeys);
  // A public demo value (the emulator's, MinIO's default) shown in a template's own files is no
  // leak: it is noted as a demo value instead, and left out of the scan.
  const demoKeys = Object.keys(raw).filter(
    (key) => isSecretKey(key, connectorSecretKeys) && isPublicDemoValue(raw[key]!),
  );
  const scanned = Object.fromEntries(Object.entries(raw).filter(([key]) => !demoKeys.includes(key)));
  // Read again into doctor's own registry, the public demo values left out (they are noted, not scanned for).
  readConfiguration(scanned, { registry, connectorSecretKeys });
  const credential = checked && {
    method: checked.resolved.method.name,
    rotationDays: rotationDaysOf(checked.resolved.method, checked.resolved.methodKeys),
    issuedAt: checked.resolved.common.credential_issued_at,
  };
  return [
    ...demoKeys.map(demoValueFinding),
    ...configurationFindings({ raw, registry, credential, unknownKeys: checked?.report.unknownKeys ?? [], now }),
  ];
}

function demoValueFinding(key: string): Finding {
  return {
    severity: 'note',
    check: 'demo-credential',
    message: `'${key}' holds a public demo value (the emulator's, or a local server's default): right for a local target, never for a real source`,
    key,
    hint: `put the real credential in '${key}' before pointing the configuration at a real source`,
  };
}

/** The project's files: their modes, git, secrets written in them or in the state, secret defaults. */
async function projectFindings(
  paths: Paths,
  raw: RawConfiguration | undefined,
  registry: SecretRegistry,
): Promise<Finding[]> {
  return [
    ...(await fileModeFindings({ path: paths.configuration, shown: shown(paths.project, paths.configuration) })),
    // A keytab is a password in a file: the same rule (read where the run reads it, from the working directory).
    ...(raw?.kerberos_keytab_path
      ? await fileModeFindings({ path: raw.kerberos_keytab_path, shown: raw.kerberos_keytab_path })
      : []),
    ...(await gitFindings(paths.project, paths.configuration, paths.files)),
    ...(await secretScanFindings({
      project: paths.project,
      skip: new Set([paths.configuration]),
      files: paths.files,
      registry,
    })),
    ...(await stateFindings({ project: paths.project, state: paths.state, registry })),
    ...(await secretDefaultFindings(paths.project)),
  ];
}

/** A configuration that cannot be read or validated is a finding like the others, with the error's own key and hint. */
function asFinding(error: unknown, check: string): Finding {
  if (!(error instanceof ConnectorAuthError)) throw error;
  return {
    severity: 'error',
    check,
    message: error.message,
    ...(error.key ? { key: error.key } : {}),
    ...(error.hint ? { hint: error.hint } : {}),
  };
}
