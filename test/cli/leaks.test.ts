import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, initTemplate } from '../helpers/cli.js';
import { HOSTILE_SECRET, expectNoLeak } from '../helpers/leak-check.js';
import { start, type FaultyApi, type PeerAuth, type Fault } from '../peers/faulty-api.js';

/**
 * Issue 22, the leak classes: a secret holding `+ / = & % " \`, both other quotes, `<` `>`, a tab
 * and a newline reaches the process in each way the issue found it leaking — escaped by a service
 * before it is echoed, escaped twice, inspected, printed as bytes, folded or cut by our own
 * messages, copied into a redirect, written into base_url — and no 12-character window of it may
 * appear, in any form, on stdout, on stderr, under files/ or in the warehouse, for `debug`,
 * `debug --json` and `probe --json`.
 */

const S = HOSTILE_SECRET;
const htmlEscape = (t: string) =>
  t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
const xmlText = (t: string) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

let root: string;
const peers: FaultyApi[] = [];
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'connector-auth-leaks-'));
});
afterAll(async () => {
  await Promise.all(peers.map((peer) => peer.stop()));
  await rm(root, { recursive: true, force: true });
});

async function peerWith(auth: PeerAuth, faults?: Record<string, Fault>): Promise<FaultyApi> {
  const peer = await start({ auth, ...(faults ? { faults } : {}) });
  peers.push(peer);
  return peer;
}

/** The connector of the classes a connector's own printing causes: it runs at load (probe too) and in update(). */
const PRINTING_CONNECTOR = `import { readFileSync } from 'node:fs';
import { defineConnector } from 'connector-auth';

// Top-level code runs for probe as for debug: it reads the secret as a careless connector might.
const raw = JSON.parse(readFileSync(new URL('./configuration.json', import.meta.url), 'utf8'));
console.log({ password: raw.password, nested: { again: [raw.password] } });
console.log(Buffer.from(raw.password));
console.error({ body: Buffer.from(raw.password) });
console.log(JSON.stringify({ message: JSON.stringify({ password: raw.password }) }));
console.log(Buffer.from(raw.password).toJSON());

export default defineConnector({
  source: 'rest',
  async update({ configuration, op, log }) {
    console.log(configuration);
    log.info('echo', { body: Buffer.from(raw.password), text: JSON.stringify({ password: raw.password }) });
    log.warning(\`inspected: \${JSON.stringify(raw.password)}\`);
    await op.upsert('items', { id: 1, note: 'fine' });
    await op.checkpoint({ at: 1 });
    // Refused by the row guard (exit 1): the hex of the secret must not reach the warehouse either.
    await op.upsert('items', { id: 2, note: Buffer.from(raw.password).toString('hex') });
  },
});
`;

/** A connector whose messages quote the secret JSON-escaped, which our JSON output escapes once more. */
const JSON_TWICE_CONNECTOR = `import { readFileSync } from 'node:fs';
import { defineConnector } from 'connector-auth';

const raw = JSON.parse(readFileSync(new URL('./configuration.json', import.meta.url), 'utf8'));
console.error(JSON.stringify({ message: JSON.stringify({ password: raw.password }) }));

export default defineConnector({
  source: 'rest',
  async update({ log }) {
    log.info(\`the API answered \${JSON.stringify({ password: raw.password })}\`);
    throw new Error(\`unexpected answer \${JSON.stringify({ password: raw.password })}\`);
  },
});
`;

interface LeakClass {
  name: string;
  /** A project whose run meets the leak; `extra` are texts to check beside the run's output (a peer's log). */
  project(
    dir: string,
  ): Promise<{ configuration: Record<string, string>; connector?: string; extra?: () => Record<string, string> }>;
  /** Exit code of debug and of probe. */
  codes: { debug: number; probe: number };
  /** Where the secret was met, redacted (so the test cannot pass without meeting it). */
  evidence: RegExp;
}

const longEcho = (secret: string) =>
  `${'the request signature we calculated does not match the one you provided; '.repeat(4).slice(0, 285)}${secret} trailing`;

const oauth = (peer: FaultyApi) => ({
  auth_method: 'oauth2_client_credentials',
  token_url: peer.tokenUrl,
  client_id: 'app',
  client_secret: S,
  token_endpoint_auth: 'client_secret_post',
  base_url: peer.url,
  probe_path: 'health',
});

const aws = (peer: FaultyApi) => ({
  auth_method: 'aws_access_key',
  aws_access_key_id: 'AKIAEXAMPLEKEY123456',
  aws_secret_access_key: S,
  aws_region: 'us-east-1',
  aws_service: 'execute-api',
  base_url: peer.url,
  probe_path: 'health',
});

const classes: LeakClass[] = [
  {
    name: "an HTML-escaped echo in a token endpoint's error_description",
    project: async () => ({
      configuration: oauth(
        await peerWith({
          kind: 'oauth',
          clientId: 'app',
          clientSecret: 'the-right-one',
          describeRefusal: (sent) => `client secret "${htmlEscape(sent)}" is not valid`,
        }),
      ),
    }),
    codes: { debug: 3, probe: 3 },
    evidence: /invalid_client \(client secret "<redacted:client_secret>" is not valid\)/,
  },
  {
    name: 'a JSON-escaped secret in a message, escaped again by JSON log lines and --json error output',
    project: async () => ({
      configuration: {
        auth_method: 'basic',
        username: 'alice',
        password: S,
        base_url: (await peerWith({ kind: 'basic', username: 'alice', password: S })).url,
        probe_path: 'health',
      },
      connector: JSON_TWICE_CONNECTOR,
    }),
    codes: { debug: 1, probe: 0 },
    evidence: /\{\\?"password\\?":\\?"<redacted:password>\\?"\}/,
  },
  {
    name: 'a multi-line echo in error_description, which the message folds onto one line',
    project: async () => ({
      configuration: oauth(
        await peerWith({
          kind: 'oauth',
          clientId: 'app',
          clientSecret: 'the-right-one',
          describeRefusal: (sent) => `rejected:\n  ${sent}\n  (check the secret)`,
        }),
      ),
    }),
    codes: { debug: 3, probe: 3 },
    evidence: /invalid_client \(rejected: <redacted:client_secret> \(check the secret\)\)/,
  },
  {
    name: 'an XML-escaped echo in an AWS <Message>, quoted by the SigV4-signed REST source',
    project: async () => ({
      configuration: aws(
        await peerWith(
          { kind: 'none' },
          {
            '/health': {
              kind: 'status',
              status: 403,
              contentType: 'application/xml',
              body: `<Error><Code>AccessDenied</Code><Message>secret ${xmlText(S)} refused</Message></Error>`,
            },
          },
        ),
      ),
    }),
    codes: { debug: 3, probe: 3 },
    evidence: /HTTP 403 Forbidden: secret <redacted:aws_secret_access_key> refused/,
  },
  {
    name: 'a long AWS message, cut at 300 characters in the middle of the secret',
    project: async () => ({
      configuration: aws(
        await peerWith(
          { kind: 'none' },
          { '/health': { kind: 'status', status: 403, body: JSON.stringify({ message: longEcho(S) }) } },
        ),
      ),
    }),
    codes: { debug: 3, probe: 3 },
    evidence: /you pro<redacted:aws_s…\)/,
  },
  {
    name: "the connector's own prints: util.inspect, Buffers, Buffer JSON in log fields, JSON twice, hex in a row",
    project: async () => ({
      configuration: {
        auth_method: 'basic',
        username: 'alice',
        password: S,
        base_url: (await peerWith({ kind: 'basic', username: 'alice', password: S })).url,
        probe_path: 'health',
      },
      connector: PRINTING_CONNECTOR,
    }),
    codes: { debug: 1, probe: 0 },
    evidence: /<Buffer <redacted:password>>/,
  },
  {
    name: 'an API key in the query string, copied into a redirect to another host',
    project: async () => {
      const other = await peerWith({ kind: 'none' });
      const peer = await peerWith(
        { kind: 'query', name: 'api_key', value: S },
        { '/health': { kind: 'redirect', to: other.url }, '/items': { kind: 'redirect', to: other.url } },
      );
      return {
        configuration: {
          auth_method: 'api_key',
          api_key: S,
          api_key_location: 'query',
          api_key_query_param: 'api_key',
          base_url: peer.url,
          probe_path: 'health',
        },
        extra: () => {
          // The redirect was followed: the other host was asked, without the key.
          expect(other.requests.length).toBeGreaterThan(0);
          return { 'the other host': JSON.stringify(other.requests) };
        },
      };
    },
    codes: { debug: 0, probe: 0 },
    evidence: /"outcome":"HTTP 200"|probe succeeded/,
  },
  {
    name: 'a password in base_url',
    project: async () => {
      const peer = await peerWith({ kind: 'none' });
      const url = new URL(peer.url);
      url.username = 'bob';
      url.password = S;
      return {
        configuration: { auth_method: 'bearer', token: 'tok-bearer-0123456', base_url: url.href, probe_path: 'health' },
      };
    },
    codes: { debug: 2, probe: 2 },
    evidence: /key 'base_url' must not hold a user name or password/,
  },
];

const COMMANDS: [label: string, command: 'debug' | 'probe', ...flags: string[]][] = [
  ['debug', 'debug'],
  ['debug --json', 'debug', '--json'],
  ['probe --json', 'probe', '--json'],
];

let projects = 0;
describe.each(classes)('$name', (leak) => {
  for (const [label, command, ...flags] of COMMANDS) {
    it(`${label}: no trace of the secret in stdout, stderr, files/ or the warehouse`, async () => {
      const dir = join(root, `leak-${++projects}`);
      const { configuration, connector, extra } = await leak.project(dir);
      await initTemplate(root, `leak-${projects}`, 'rest-api', configuration, {
        replaceConfiguration: true,
        auth: 'all',
      });
      if (connector) await writeFile(join(dir, 'connector.ts'), connector);
      const run = await cli([command, dir, ...flags]);
      expect(run.code, run.stderr).toBe(command === 'probe' ? leak.codes.probe : leak.codes.debug);
      expect(run.stdout + run.stderr).toMatch(leak.evidence);
      if (flags.includes('--json')) expect(() => JSON.parse(run.stdout.trim().split('\n').at(-1)!)).not.toThrow();
      await expectNoLeak(S, {
        texts: { stdout: run.stdout, stderr: run.stderr, ...extra?.() },
        files: join(dir, 'files'),
        warehouse: join(dir, 'files', 'warehouse.db'),
      });
    });
  }
});
