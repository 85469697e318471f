import { spawn } from 'node:child_process';
import {
  chmod,
  chown,
  lstat,
  mkdir,
  mkdtemp,
  readFile,
  readdir,
  readlink,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// internals: withValue, the file rewrite the persister makes, is no export of project/'s door
import { createConfigurationPersister, withValue } from '../../src/project/persist-configuration-value.js';
import { createLogger } from '../../src/log/index.js';

/** Writing a rotated value back to configuration.json: atomically, changing nothing else, and never losing it. */

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'connector-auth-persist-'));
  await chmod(root, 0o755);
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const NEW = 'rt-new-value-0123456789';
let n = 0;
async function configuration(text: string, mode = 0o644) {
  const dir = join(root, `p${++n}`);
  await mkdir(dir, { recursive: true });
  const path = join(dir, 'configuration.json');
  await writeFile(path, text);
  await chmod(path, mode);
  return { dir, path, filesDir: join(dir, 'files') };
}

function persister(c: { path: string; filesDir: string }) {
  const lines: string[] = [];
  const log = createLogger({ level: 'debug', write: (l) => lines.push(l) });
  return { persist: createConfigurationPersister({ configurationPath: c.path, filesDir: c.filesDir, log }), lines };
}

describe('withValue: only the value changes', () => {
  const cases: [string, string][] = [
    [
      '2-space',
      '{\n  "auth_method": "oauth2_refresh_token",\n  "refresh_token": "old",\n  "base_url": "https://x"\n}\n',
    ],
    ['4-space, no final newline', '{\n    "refresh_token": "old",\n    "b": "\\u00e9\\/"\n}'],
    ['tabs and CRLF', '{\r\n\t"a": "1",\r\n\t"refresh_token": "old"\r\n}\r\n'],
    ['one line', '{"a":"1","refresh_token":"old","c":"3"}'],
    ['spaces around colons', '{ "refresh_token" : "old" , "a" : "x:y,z}" }'],
  ];
  for (const [name, text] of cases) {
    it(name, () => {
      const out = withValue(text, 'refresh_token', 'n"e\\w');
      expect(JSON.parse(out)).toEqual({ ...JSON.parse(text), refresh_token: 'n"e\\w' });
      expect(Object.keys(JSON.parse(out))).toEqual(Object.keys(JSON.parse(text)));
      expect(out.replace(JSON.stringify('n"e\\w'), '"old"')).toBe(text);
    });
  }

  it('a key not yet there is added last, laid out like the others', () => {
    expect(withValue('{\n  "a": "1",\n  "b": "2"\n}\n', 'refresh_token', 'v')).toBe(
      '{\n  "a": "1",\n  "b": "2",\n  "refresh_token": "v"\n}\n',
    );
    expect(withValue('{"a":"1"}', 'k', 'v')).toBe('{"a":"1","k":"v"}');
    expect(withValue('{\r\n\t"a": "1"\r\n}', 'k', 'v')).toBe('{\r\n\t"a": "1",\r\n\t"k": "v"\r\n}');
    expect(withValue('{}', 'k', 'v')).toBe('{"k": "v"}');
  });

  it('a duplicated key gets the value everywhere (JSON.parse reads the last one)', () => {
    const out = withValue('{"k":"a","x":"1","k":"b"}', 'k', 'v');
    expect(out).toBe('{"k":"v","x":"1","k":"v"}');
  });
});

describe('createConfigurationPersister', () => {
  it('rewrites atomically, keeping other keys, order, indentation and the file mode; leaves no temp file', async () => {
    const text =
      '{\n    "auth_method": "oauth2_refresh_token",\n    "refresh_token": "old-token-value",\n    "z_last": "kept"\n}\n';
    const c = await configuration(text, 0o600);
    const { persist, lines } = persister(c);
    await persist('refresh_token', NEW);
    expect(await readFile(c.path, 'utf8')).toBe(text.replace('old-token-value', NEW));
    expect((await stat(c.path)).mode & 0o777).toBe(0o600);
    expect(await readdir(c.dir)).toEqual(['configuration.json']);
    expect(lines.join('')).toContain(`saved the new value of 'refresh_token' to ${c.path}`);
    expect(lines.join('')).not.toContain(NEW);
  });

  it('follows a symbolic link: the file it points to is rewritten, the link stays', async () => {
    const c = await configuration('{"refresh_token":"old"}', 0o640);
    const link = join(c.dir, 'linked.json');
    await symlink(c.path, link);
    await createConfigurationPersister({
      configurationPath: link,
      filesDir: c.filesDir,
      log: createLogger({ write: () => undefined }),
    })('refresh_token', NEW);
    expect((await lstat(link)).isSymbolicLink()).toBe(true);
    expect(await readlink(link)).toBe(c.path);
    expect(JSON.parse(await readFile(c.path, 'utf8')).refresh_token).toBe(NEW);
    expect((await stat(c.path)).mode & 0o777).toBe(0o640);
  });

  it('serialises concurrent saves: every one lands', async () => {
    const c = await configuration('{\n  "a": "1"\n}\n');
    const { persist } = persister(c);
    await Promise.all(Array.from({ length: 20 }, (_, i) => persist(`key_${i}`, `value-${i}`)));
    const saved = JSON.parse(await readFile(c.path, 'utf8'));
    expect(Object.keys(saved)).toEqual(['a', ...Array.from({ length: 20 }, (_, i) => `key_${i}`)]);
  });

  it('a read-only file (0444) is refused, for root too: ConfigurationError naming it, value in a 0600 recovery file', async () => {
    const text = '{\n  "refresh_token": "old"\n}\n';
    const c = await configuration(text, 0o444);
    const { persist } = persister(c);
    const error = (await persist('refresh_token', NEW).then(
      () => undefined,
      (e: unknown) => e,
    )) as Error & { exitCode: number; key: string };
    expect(error?.name).toBe('ConfigurationError');
    expect(error.exitCode).toBe(2);
    expect(error.key).toBe('refresh_token');
    const recovery = join(c.filesDir, 'refresh_token.recovery.json');
    expect(error.message).toContain(c.path);
    expect(error.message).toContain('read-only (mode 0444)');
    expect(error.message).toContain(recovery);
    expect(error.message).not.toContain(NEW);
    expect(await readFile(c.path, 'utf8')).toBe(text);
    expect((await stat(recovery)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(recovery, 'utf8'))).toMatchObject({
      key: 'refresh_token',
      value: NEW,
      configuration: c.path,
    });
  });

  it('when even the recovery file cannot be written, the message says so', async () => {
    const c = await configuration('{"refresh_token":"old"}', 0o444);
    await writeFile(c.filesDir, 'a file where the files folder should be');
    const error = (await persister(c)
      .persist('refresh_token', NEW)
      .catch((e: unknown) => e)) as Error;
    expect(error.message).toContain('failed too');
    expect(error.message).not.toContain(NEW);
  });

  it('a folder the process may not write to (a real EACCES: as root, the save runs in a child process as nobody)', async () => {
    const c = await configuration('{\n  "refresh_token": "old"\n}\n', 0o644);
    await chmod(c.dir, 0o555);
    const asRoot = process.getuid?.() === 0;
    let result: { name?: string; message?: string; exitCode?: number };
    if (asRoot) {
      await mkdir(c.filesDir, { mode: 0o700 });
      await chown(c.filesDir, 65534, 65534);
      await chmod(c.dir, 0o755); // root-owned 0755: nobody can read, not create
      result = await persistAsNobody(c.path, c.filesDir);
    } else {
      await mkdir(c.filesDir, { mode: 0o700 }).catch(() => undefined);
      result = await persister(c)
        .persist('refresh_token', NEW)
        .then(
          () => ({}),
          (e: Error & { exitCode: number }) => ({ name: e.name, message: e.message, exitCode: e.exitCode }),
        );
    }
    await chmod(c.dir, 0o755);
    expect(result.name, JSON.stringify(result)).toBe('ConfigurationError');
    expect(result.exitCode).toBe(2);
    expect(result.message).toContain('EACCES');
    expect(result.message).toContain(join(c.filesDir, 'refresh_token.recovery.json'));
    expect(JSON.parse(await readFile(c.path, 'utf8')).refresh_token).toBe('old');
    const recovery = join(c.filesDir, 'refresh_token.recovery.json');
    expect((await stat(recovery)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(recovery, 'utf8')).value).toBe(NEW);
  });
});

/** Runs the persister in `node --import tsx` as uid/gid 65534, where permissions really apply. */
function persistAsNobody(
  configurationPath: string,
  filesDir: string,
): Promise<{ name?: string; message?: string; exitCode?: number }> {
  const module = fileURLToPath(new URL('../../src/project/persist-configuration-value.ts', import.meta.url));
  const logModule = fileURLToPath(new URL('../../src/log/index.ts', import.meta.url));
  const script = `
    const { createConfigurationPersister } = await import(${JSON.stringify(module)});
    const { createLogger } = await import(${JSON.stringify(logModule)});
    const persist = createConfigurationPersister({ configurationPath: ${JSON.stringify(configurationPath)}, filesDir: ${JSON.stringify(filesDir)}, log: createLogger({ write: () => undefined }) });
    try { await persist('refresh_token', ${JSON.stringify(NEW)}); console.log(JSON.stringify({})); }
    catch (e) { console.log(JSON.stringify({ name: e.name, message: e.message, exitCode: e.exitCode })); }
  `;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      uid: 65534,
      gid: 65534,
      env: { ...process.env, HOME: tmpdir() },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', () => {
      const line = out.trim().split('\n').at(-1) ?? '';
      try {
        resolve(JSON.parse(line));
      } catch {
        reject(new Error(`the child process printed no result: ${out} ${err}`));
      }
    });
  });
}
