import { readdir, readFile, stat } from 'node:fs/promises';
import { extname, join, relative } from 'node:path';
import type { SecretRegistry } from '../../secrets/index.js';
import type { Finding } from './finding.js';

/** Folders that are not the author's files: dependencies, version control, build output. */
const SKIPPED_DIRECTORIES = new Set(['node_modules', '.git', 'dist', 'build', 'coverage']);
/** Text an author writes a credential into by mistake: code, settings, notes. */
const SCANNED_EXTENSIONS = new Set([
  '.ts',
  '.mts',
  '.cts',
  '.js',
  '.mjs',
  '.cjs',
  '.json',
  '.md',
  '.txt',
  '.yaml',
  '.yml',
  '.toml',
  '.ini',
  '.sh',
  '.py',
  '.sql',
]);
const MAX_FILE_BYTES = 2 * 2 ** 20;
const MAX_FILES = 5_000;

/**
 * Every file of the project searched for the configuration's secrets, in every form the registry
 * knows (raw, base64, URL-encoded, JSON-escaped, PEM lines): a token pasted into connector.ts, a
 * README example with the real password, a copy of the configuration under another name. One pass
 * per file over all secrets (the registry's automaton); the line is found only in a file that has one.
 */
export async function secretScanFindings(options: {
  project: string;
  skip: ReadonlySet<string>;
  files: string;
  registry: SecretRegistry;
}): Promise<Finding[]> {
  const { project, registry } = options;
  if (registry.size === 0) return [];
  const findings: Finding[] = [];
  let scanned = 0;
  for await (const path of textFiles(project, options.files, options.skip)) {
    if (++scanned > MAX_FILES) {
      findings.push({
        severity: 'note',
        check: 'scan-truncated',
        message: `only the first ${MAX_FILES} files were searched for secrets`,
      });
      break;
    }
    const text = await readFile(path, 'utf8').catch(() => '');
    if (!registry.contains(text)) continue;
    const lines = text.split('\n');
    for (let i = 0; i < lines.length; i++) {
      const labels = registry.labelsIn(lines[i]!);
      if (labels.length === 0) continue;
      const where = `${relative(project, path)}:${i + 1}`;
      findings.push({
        severity: 'error',
        check: 'secret-in-file',
        message: `${where} holds the value of ${labels.map((l) => `'${l}'`).join(', ')} from the configuration`,
        key: labels[0]!,
        where,
        hint: `read it from the configuration instead, and rotate ${labels.length > 1 ? 'these secrets' : 'the secret'}: it may already have been shared`,
      });
    }
  }
  return findings;
}

/**
 * The local state file, which `debug` refuses to write with a secret in it; one written by an older
 * version, by hand or by another tool is checked here.
 */
export async function stateFindings(options: {
  project: string;
  state: string;
  registry: SecretRegistry;
}): Promise<Finding[]> {
  const text = await readFile(options.state, 'utf8').catch(() => undefined);
  if (text === undefined) return [];
  const labels = options.registry.labelsIn(text);
  if (labels.length === 0) return [];
  const where = relative(options.project, options.state);
  return [
    {
      severity: 'error',
      check: 'secret-in-state',
      message: `${where} holds the value of ${labels.map((l) => `'${l}'`).join(', ')}; state is stored unencrypted`,
      key: labels[0]!,
      where,
      hint: `run 'connector-auth reset' and keep credentials out of checkpoint()`,
    },
  ];
}

async function* textFiles(
  directory: string,
  filesDirectory: string,
  skip: ReadonlySet<string>,
): AsyncGenerator<string> {
  const entries = await readdir(directory, { withFileTypes: true }).catch(() => []);
  entries.sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) {
      if (SKIPPED_DIRECTORIES.has(entry.name) || path === filesDirectory) continue;
      yield* textFiles(path, filesDirectory, skip);
    } else if (entry.isFile() && !skip.has(path) && SCANNED_EXTENSIONS.has(extname(entry.name))) {
      const size = await stat(path).then(
        (s) => s.size,
        () => Infinity,
      );
      if (size <= MAX_FILE_BYTES) yield path;
    }
  }
}
