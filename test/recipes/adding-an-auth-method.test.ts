import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { start, type HttpApiPeer } from '../peers/http-api.js';
import { rejection } from '../helpers/rejection.js';
import { copyProject, type ProjectCopy } from './project-copy.js';

/**
 * docs/recipes/adding-an-auth-method.md, followed step by step on a copy of the project: a toy
 * method that sends its key in an `X-Toy-Key` header. Its file and its name in src/auth/README.md, its
 * line in the built-in methods, its key and the regenerated docs/configuration.md are the only edits;
 * the copy then passes the type-check, the lint, the house tests and the doc tests, the rest source
 * (which needs `httpRequest`) accepts the method against a real HTTP API, and the sources that cannot
 * use it list it nowhere. Leaving out the doc step fails the copy's key-catalogue test, and leaving out
 * the README's name its house test.
 */

const TOY_METHOD = `import { z } from 'zod';
import { keys } from '../../config/index.js';
import { defineAuthMethod } from '../auth-method.js';

export default defineAuthMethod({
  name: 'toy_key',
  summary: 'a toy key in an X-Toy-Key header',
  keys: z.object({ toy_key: keys.text() }),
  create({ toy_key }) {
    return {
      method: 'toy_key',
      description: 'toy key',
      rejectedKey: 'toy_key',
      sendsSecret: true,
      httpRequest: {
        async authorize(request) {
          request.headers.set('x-toy-key', toy_key);
        },
      },
    };
  },
});
`;

type Library = typeof import('../../src/index.js');
type Registry = typeof import('../../src/secrets/index.js');

let copy: ProjectCopy;
let library: Library;
let registry: () => InstanceType<Registry['SecretRegistry']>;
let peer: HttpApiPeer;
const KEY = 'toy-key-4f1d9a7c2b';

beforeAll(async () => {
  copy = await copyProject('auth-method');
  // 1. The method's file, in the family it belongs to, and its name in the family's README line.
  await copy.add('src/auth/static/toy-key.ts', TOY_METHOD);
  await copy.insertAfter('src/auth/README.md', '- Methods: `basic.ts`, ', '`toy-key.ts`, ');
  // 2. One line in the built-in methods.
  await copy.insertAfter(
    'src/auth/built-in-methods.ts',
    'const BUILT_IN_METHODS = {\n',
    "  toy_key: { provides: ['httpRequest'], load: () => import('./static/toy-key.js') },\n",
  );
  // 3. Its key in the key catalogue, then docs/configuration.md written from it.
  await copy.insertAfter(
    'src/config/keys/key-catalogue.ts',
    'export const KEY_CATALOGUE: Readonly<Record<string, KeySpec>> = {\n',
    "  toy_key: secret('toy_key', 'the toy key', 'header'),\n",
  );
  await copy.script('configuration-doc.ts');
  library = await copy.load<Library>('index.ts');
  const secrets = await copy.load<Registry>('secrets/index.ts');
  registry = () => new secrets.SecretRegistry();
  peer = await start({ auth: { kind: 'header', name: 'x-toy-key', value: KEY } });
});

afterAll(async () => {
  await peer?.stop();
  await copy?.remove();
});

describe('recipe: adding an auth method', () => {
  it('the copy passes the type-check, the lint, the house tests and the doc tests', { timeout: 600_000 }, async () => {
    expect(await copy.typeCheck()).toBe('');
    expect(await copy.lint()).toBe('');
    expect(await copy.test()).toBe('');
  });

  it(
    'without its step "regenerate docs/configuration.md", the copy fails its key-catalogue test',
    { timeout: 300_000 },
    async () => {
      const report = await copy.without('docs/configuration.md', () =>
        copy.test(['test/config/key-catalogue.test.ts']),
      );
      expect(report).toContain('docs/configuration.md is generated from the current catalogue');
      expect(report).toContain('toy_key');
    },
  );

  it("without its name in its family's README line, the copy fails its house test", { timeout: 300_000 }, async () => {
    const report = await copy.without('src/auth/README.md', () => copy.test(['test/house/readme-lists.test.ts']));
    expect(report).toContain('src/auth/static/toy-key.ts is not named in src/auth/README.md');
  });

  it('the rest source takes the new method through httpRequest: the probe passes, a wrong key is exit 3 naming it', async () => {
    const configuration = { auth_method: 'toy_key', toy_key: KEY, base_url: peer.url, probe_path: 'health' };
    const auth = await library.authenticate(configuration, { registry: registry() });
    try {
      expect((await auth.probe()).outcome).toBe('HTTP 200');
    } finally {
      await auth.close();
    }
    expect(peer.requests.at(-1)?.headers['x-toy-key']).toBe(KEY);

    const wrong = await library.authenticate(
      { ...configuration, toy_key: 'not-the-key-0000' },
      { registry: registry() },
    );
    try {
      const error = await rejection(wrong.probe());
      expect([error.exitCode, error.key]).toEqual([3, 'toy_key']);
    } finally {
      await wrong.close();
    }
  });

  it('a source that needs something else refuses it, and the rest source lists it among the methods that fit', async () => {
    const refused = await rejection(
      library.authenticate(
        { auth_method: 'toy_key', toy_key: KEY, host: 'db.example.com', database: 'd', user: 'u' },
        { source: 'postgres', registry: registry() },
      ),
    );
    expect([refused.exitCode, refused.code, refused.key]).toEqual([2, 'method_not_accepted', 'auth_method']);
    expect(refused.message).not.toMatch(/accepts .*toy_key/);

    const listed = await rejection(
      library.authenticate(
        { auth_method: 'password', password: 'pw-123456', base_url: peer.url },
        { registry: registry() },
      ),
    );
    expect(listed.code).toBe('method_not_accepted');
    expect(listed.message).toMatch(/it accepts .*\btoy_key\b/);
  });
});
