import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * When a rotated secret (a refresh token) cannot be written back to the configuration, it goes to
 * `<files>/<key>.recovery.json`, readable by its owner only (0600), so the one valid copy is not lost
 * with the process. The file says what to do with it; nothing reads it automatically.
 */

export function recoveryFilePath(filesDir: string, key: string): string {
  return join(filesDir, `${key}.recovery.json`);
}

export async function writeRecoveryFile(
  filesDir: string,
  key: string,
  value: string,
  details: { configuration?: string; now?: number } = {},
): Promise<string> {
  await mkdir(filesDir, { recursive: true, mode: 0o700 });
  const path = recoveryFilePath(filesDir, key);
  const content =
    JSON.stringify(
      {
        key,
        value,
        written_at: new Date(details.now ?? Date.now()).toISOString(),
        ...(details.configuration ? { configuration: details.configuration } : {}),
        what_to_do: `copy "value" into the configuration as '${key}', then delete this file`,
      },
      null,
      2,
    ) + '\n';
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  // Created 0600 from the first byte (a chmod afterwards would leave a window), then renamed in place.
  const handle = await open(temp, 'wx', 0o600);
  try {
    await handle.writeFile(content, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  return path;
}

export async function recoveryFileExists(filesDir: string, key: string): Promise<boolean> {
  return stat(recoveryFilePath(filesDir, key)).then(
    (s) => s.isFile(),
    () => false,
  );
}
