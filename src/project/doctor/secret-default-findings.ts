import { readFile } from 'node:fs/promises';
import { isSecretKey, schemaDefaults } from '../../config/index.js';
import { loadConnector } from '../loader/index.js';
import { shown, type Finding } from './finding.js';

/**
 * A connector key that is secret (by its name, or the connector's `secretKeys`) with a default
 * written in connector.ts: the credential is in every copy of the code, in its history, and is
 * used silently whenever a configuration leaves the key out. Only a default whose value appears
 * literally in the file counts (one read from the environment at load is not in the code). The
 * finding names the key and the line, never the value.
 */
export async function secretDefaultFindings(project: string): Promise<Finding[]> {
  // A connector that does not load is reported by the configuration check already.
  const loaded = await loadConnector(project).catch(() => undefined);
  const schema = loaded?.connector.configuration;
  if (!loaded || !schema) return [];
  const secretKeys = new Set<string>(loaded.connector.secretKeys ?? []);
  const lines = (await readFile(loaded.file, 'utf8').catch(() => '')).split('\n');
  const file = shown(project, loaded.file);
  const findings: Finding[] = [];
  for (const [key, value] of schemaDefaults(schema)) {
    if (!isSecretKey(key, secretKeys)) continue;
    const line = lines.findIndex((text) => text.includes(value));
    if (line < 0) continue;
    const where = `${file}:${line + 1}`;
    findings.push({
      severity: 'warning',
      check: 'secret-default-in-code',
      message: `${where} gives the secret key '${key}' a default: a credential in the code, used whenever the configuration leaves '${key}' out`,
      key,
      where,
      hint: `remove the default and set '${key}' in configuration.json`,
    });
  }
  return findings;
}
