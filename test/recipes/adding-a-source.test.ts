import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rejection } from '../helpers/rejection.js';
import { copyProject, type ProjectCopy } from './project-copy.js';

/**
 * docs/recipes/adding-a-source.md, followed step by step on a copy of the project: a toy source
 * that logs in to a line protocol with a password (`LOGIN <password>` → `OK` or `DENIED`). Its file,
 * its line in the built-in sources, its client type, its error code and the regenerated docs are the
 * only edits; the copy then passes the type-check, the lint, the house tests and the doc tests; no auth
 * method changes, yet the `password` method works with it and every other method is refused with the
 * one that fits. Leaving out a step (the docs, the door's export, the package's export) fails the copy.
 */

const TOY_SOURCE = `import { createConnection } from 'node:net';
import { z } from 'zod';
import { keys } from '../config/index.js';
import { AuthenticationError } from '../errors/index.js';
import { defineSource, type ConnectedSource, type ProbeResult } from './source-definition.js';

export type ToyLineSource = ConnectedSource;

export default defineSource({
  name: 'toy-line',
  summary: 'a toy line protocol that checks a password',
  keys: z.object({ host: keys.text(), port: keys.integer({ min: 1, max: 65535, default: 7 }) }),
  needs: ['password'],
  async connect(k, credential): Promise<ToyLineSource> {
    const login = () =>
      new Promise<string>((resolve, reject) => {
        const socket = createConnection({ host: k.host, port: k.port });
        socket.once('error', reject);
        socket.once('data', (answer) => {
          resolve(answer.toString().trim());
          socket.end();
        });
        socket.write('LOGIN ' + credential.password.read() + '\\n');
      });
    return {
      async probe(): Promise<ProbeResult> {
        const started = performance.now();
        const answer = await login();
        if (answer !== 'OK')
          throw new AuthenticationError(credential.description + ': the toy server said ' + answer, {
            code: 'toy_login_refused',
            key: credential.rejectedKey,
          });
        return { target: 'toy ' + k.host, outcome: answer, elapsedMs: performance.now() - started };
      },
      async close() {},
    };
  },
});
`;

type Library = typeof import('../../src/index.js');
type Registry = typeof import('../../src/secrets/index.js');

let copy: ProjectCopy;
let library: Library;
let registry: () => InstanceType<Registry['SecretRegistry']>;
let server: Server;
let port: number;
const PASSWORD = 'toy-password-8c31e5';

beforeAll(async () => {
  copy = await copyProject('source');
  // 1. The source's file, and its line in its folder's README.
  await copy.add('src/sources/toy-line.ts', TOY_SOURCE);
  await copy.insertAfter(
    'src/sources/README.md',
    "- `built-in-sources.ts`: the built-in sources' table: source name → lazy import.\n",
    '- `toy-line.ts`: a toy line protocol that checks a password.\n',
  );
  // 2. Its line in the built-in sources (its keys, host and port, are in the key catalogue already).
  await copy.insertAfter(
    'src/sources/built-in-sources.ts',
    'const SOURCES: Record<string, () => Promise<{ default: SourceDefinition }>> = {\n',
    "  'toy-line': () => import('./toy-line.js') as Promise<{ default: SourceDefinition }>,\n",
  );
  // 2, continued: its client type, through the sources' door, in SourceClients and the package's exports.
  await copy.insertAfter(
    'src/sources/index.ts',
    "export { SOURCE_NAMES, loadSource } from './built-in-sources.js';\n",
    "export type { ToyLineSource } from './toy-line.js';\n",
  );
  await copy.insertAfter(
    'src/connector/definition/define-connector.ts',
    'export interface SourceClients {\n',
    "  'toy-line': import('../../sources/index.js').ToyLineSource;\n",
  );
  await copy.insertAfter('src/index.ts', '  S3SdkClient,\n', '  ToyLineSource,\n');
  // 3. Its one new error code in its class's catalogue.
  await copy.insertAfter(
    'src/errors/codes/authentication-codes.ts',
    'export const AUTHENTICATION_CODES = {\n',
    "  toy_login_refused: 'the toy server refused the password',\n",
  );
  // 3, continued: the generated docs written again from the key and error catalogues.
  await copy.script('configuration-doc.ts');
  await copy.script('errors-doc.ts');
  library = await copy.load<Library>('index.ts');
  const secrets = await copy.load<Registry>('secrets/index.ts');
  registry = () => new secrets.SecretRegistry();
  // The toy protocol's server: one answer per login line.
  server = createServer((socket) => {
    socket.once('data', (line) => socket.end(line.toString().trim() === `LOGIN ${PASSWORD}` ? 'OK\n' : 'DENIED\n'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await copy?.remove();
});

const authenticateToy = (configuration: Record<string, string>) =>
  library.authenticate(
    { host: '127.0.0.1', port: String(port), ...configuration },
    {
      source: 'toy-line' as 'rest',
      registry: registry(),
    },
  );

describe('recipe: adding a source', () => {
  it('the copy passes the type-check, the lint, the house tests and the doc tests', { timeout: 600_000 }, async () => {
    expect(await copy.typeCheck()).toBe('');
    expect(await copy.lint()).toBe('');
    expect(await copy.test()).toBe('');
  });

  it(
    'without its step "regenerate docs/errors.md", the copy fails its error-catalogue test',
    { timeout: 300_000 },
    async () => {
      const report = await copy.without('docs/errors.md', () => copy.test(['test/errors/error-catalogue.test.ts']));
      expect(report).toContain('toy_login_refused');
      expect(report).toContain('docs/errors.md is generated from the current catalogue');
    },
  );

  it(
    "without its client type's export through the sources' door, the copy fails its type-check",
    { timeout: 300_000 },
    async () => {
      const report = await copy.without('src/sources/index.ts', () => copy.typeCheck());
      expect(report).toContain("has no exported member 'ToyLineSource'");
    },
  );

  it("without its client type's export from the package (src/index.ts), the copy fails its house test", async () => {
    const report = await copy.without('src/index.ts', () => copy.test(['test/house/source-client-exports.test.ts']));
    expect(report).toContain('ToyLineSource');
  });

  it('the password method logs in to it unchanged: the probe passes, a wrong password is exit 3 naming it', async () => {
    const auth = await authenticateToy({ auth_method: 'password', password: PASSWORD });
    expect((await auth.probe()).outcome).toBe('OK');
    await auth.close();

    const wrong = await authenticateToy({ auth_method: 'password', password: 'not-the-password' });
    const error = await rejection(wrong.probe());
    expect([error.exitCode, error.code, error.key]).toEqual([3, 'toy_login_refused', 'password']);
    await wrong.close();
  });

  it('a method without a password is refused before any connection, with the one method that fits', async () => {
    const others: Record<string, string>[] = [
      { auth_method: 'bearer', token: 'a-bearer-token-123' },
      {
        auth_method: 'aws_access_key',
        aws_access_key_id: 'AKIAIOSFODNN7EXAMPLE',
        aws_secret_access_key: 'x'.repeat(40),
      },
    ];
    for (const configuration of others) {
      const error = await rejection(authenticateToy(configuration));
      expect([error.exitCode, error.code, error.key]).toEqual([2, 'method_not_accepted', 'auth_method']);
      expect(error.message).toContain('the toy-line source does not accept');
      expect(error.message).toMatch(/it accepts password$/);
    }
  });
});
