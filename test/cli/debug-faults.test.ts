import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, exists, initTemplate, type CliRun } from '../helpers/cli.js';
import { expectNoLeak } from '../helpers/leak-check.js';
import { start, type Fault, type FaultyApi } from '../peers/faulty-api.js';

/**
 * Issue 22, the source's faults: each one injected by a real loopback peer into the built CLI
 * running the rest-api template, each ending with the right exit code and one line that names the
 * URL and the key to look at.
 */

const PASSWORD = 'pw-Fault+Inject/0n=';
let root: string;
const peers: FaultyApi[] = [];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'connector-auth-faults-'));
});
afterAll(async () => {
  await Promise.all(peers.map((peer) => peer.stop()));
  await rm(root, { recursive: true, force: true });
});

async function peerWith(options: Parameters<typeof start>[0]): Promise<FaultyApi> {
  const peer = await start(options);
  peers.push(peer);
  return peer;
}

const basic = (peer: FaultyApi, extra: Record<string, string> = {}) => ({
  auth_method: 'basic',
  username: 'alice',
  password: PASSWORD,
  base_url: peer.url,
  probe_path: 'health',
  ...extra,
});

let projects = 0;
const project = (configuration: Record<string, string>) =>
  initTemplate(root, `p${++projects}`, 'rest-api', configuration, { replaceConfiguration: true });

/** The one line a failed run prints (the log lines before it are JSON, stderr being a pipe). */
function errorLine(run: CliRun): string {
  const lines = run.stderr
    .trim()
    .split('\n')
    .filter((line) => line.startsWith('error'));
  expect(lines, run.stderr).toHaveLength(1);
  return lines[0]!;
}

describe('a fault while update() reads a body through source.json()', () => {
  const cases: [string, Fault, Record<string, string>, number, RegExp][] = [
    [
      'a connection reset partway through the body: exit 4, naming the URL and base_url',
      { kind: 'reset-mid-body' },
      {},
      4,
      /^error \[econnreset\]: basic auth as 'alice': GET http:\/\/127\.0\.0\.1:\d+\/items failed: connection reset by the server — check 'base_url'/,
    ],
    [
      'a body that stops arriving: exit 4, a timeout naming timeout_seconds',
      { kind: 'stall-mid-body' },
      { timeout_seconds: '1' },
      4,
      /^error \[timeout\]: basic auth as 'alice': GET http:\/\/127\.0\.0\.1:\d+\/items timed out after 1s — check that the source answers at 'base_url', or raise 'timeout_seconds'$/,
    ],
    [
      'a body that is not JSON: exit 4, invalid_json naming the URL',
      { kind: 'not-json' },
      {},
      4,
      /^error \[invalid_json\]: basic auth as 'alice': GET http:\/\/127\.0\.0\.1:\d+\/items answered HTTP 200 with a body that is not valid JSON \(text\/html\) — check the path the connector asks for \(joined to 'base_url'\)/,
    ],
    [
      'a 500 on a data page: exit 4, no word of probe_path',
      { kind: 'status', status: 500 },
      {},
      4,
      /^error \[http_500\]: basic auth as 'alice': GET http:\/\/127\.0\.0\.1:\d+\/items answered HTTP 500 Internal Server Error, after 4 tries — the source failed on this request: retry later; the next run resumes from the last checkpoint$/,
    ],
  ];
  for (const [what, fault, extra, code, line] of cases) {
    it(what, async () => {
      const peer = await peerWith({
        auth: { kind: 'basic', username: 'alice', password: PASSWORD },
        faults: { '/items': fault },
      });
      const dir = await project(basic(peer, extra));
      const run = await cli(['debug', dir]);
      expect(run.code, run.stderr).toBe(code);
      expect(errorLine(run)).toMatch(line);
      expect(run.stderr).not.toContain('probe_path');
      expect(run.stderr).not.toContain('update() failed');
      await expectNoLeak(PASSWORD, { texts: { stdout: run.stdout, stderr: run.stderr }, files: join(dir, 'files') });
    });
  }
});

describe('credentials in URLs', () => {
  it('base_url with a user name and password: exit 2 naming base_url, the password shown nowhere', async () => {
    const secret = 'Url-Pa55+word/Ends=';
    const dir = await project({
      auth_method: 'bearer',
      token: 'tok-bearer-0123456',
      base_url: `http://bob:${encodeURIComponent(secret)}@127.0.0.1:9/api`,
      probe_path: 'health',
    });
    for (const args of [
      ['debug', dir],
      ['probe', dir, '--json'],
      ['validate', dir],
    ]) {
      const run = await cli(args);
      expect(run.code, run.stderr).toBe(2);
      expect(errorLine(run)).toMatch(
        /^error \[malformed_key\]: invalid configuration for the rest source: key 'base_url' must not hold a user name or password \(user:password@host\)/,
      );
      await expectNoLeak(secret, { texts: { stdout: run.stdout, stderr: run.stderr } });
    }
    expect(await exists(join(dir, 'files'))).toBe(false);
  });

  it('an API key in the query string does not follow a redirect to another host', async () => {
    const key = 'qk-Redirect+Key/9876=';
    const other = await peerWith({ auth: { kind: 'none' } });
    const peer = await peerWith({
      auth: { kind: 'query', name: 'api_key', value: key },
      faults: { '/items': { kind: 'redirect', to: other.url } },
    });
    const dir = await project({
      auth_method: 'api_key',
      api_key: key,
      api_key_location: 'query',
      api_key_query_param: 'api_key',
      base_url: peer.url,
      probe_path: 'health',
    });
    const run = await cli(['debug', dir]);
    expect(run.code, run.stderr).toBe(0);
    // The first page came from the other host, asked without the key; its next pages too.
    expect(peer.requests.some((r) => r.path === '/items' && r.query.includes('api_key='))).toBe(true);
    const elsewhere = other.requests.filter((r) => r.path === '/items');
    expect(elsewhere.length).toBeGreaterThan(0);
    for (const request of elsewhere) expect(request.query).not.toContain('api_key');
    await expectNoLeak(key, {
      texts: { stdout: run.stdout, stderr: run.stderr, other: JSON.stringify(other.requests) },
      files: join(dir, 'files'),
    });
  });
});

describe('the verdicts of probe and of a token', () => {
  it("probe exits 2, as debug and validate do, when the connector's own keys are invalid", async () => {
    const peer = await peerWith({ auth: { kind: 'basic', username: 'alice', password: PASSWORD } });
    const dir = await project({ ...basic(peer), page_size: 'many' });
    await writeFile(
      join(dir, 'connector.ts'),
      `import { defineConnector, z } from 'connector-auth';
export default defineConnector({
  source: 'rest',
  configuration: z.object({ page_size: z.coerce.number().int().positive() }),
  async update() {},
});
`,
    );
    const before = peer.requests.length;
    for (const command of ['probe', 'debug', 'validate']) {
      const run = await cli([command, dir]);
      expect(run.code, `${command}: ${run.stderr}`).toBe(2);
      expect(errorLine(run)).toMatch(
        /^error \[malformed_key\]: invalid configuration for the connector: key 'page_size'/,
      );
    }
    // debug checks them before its probe, so nothing was sent.
    expect(peer.requests.slice(before).filter((r) => r.path === '/items')).toEqual([]);
  });

  it('a token revoked a moment after it was issued is fetched anew on the one 401 retry', async () => {
    const secret = 'cs-Revoked+Soon/42=';
    const peer = await peerWith({
      auth: { kind: 'oauth', clientId: 'app', clientSecret: secret, revokeFirstTokenAfterProbe: true },
    });
    const dir = await project({
      auth_method: 'oauth2_client_credentials',
      token_url: peer.tokenUrl,
      client_id: 'app',
      client_secret: secret,
      token_endpoint_auth: 'client_secret_post',
      base_url: peer.url,
      probe_path: 'health',
    });
    const run = await cli(['debug', dir]);
    expect(run.code, run.stderr).toBe(0);
    expect(peer.tokensIssued).toHaveLength(2);
    const itemsCalls = peer.requests.filter((r) => r.path === '/items');
    expect(itemsCalls[0]?.authorization).toBe(`Bearer ${peer.tokensIssued[0]}`);
    expect(itemsCalls[1]?.authorization).toBe(`Bearer ${peer.tokensIssued[1]}`);
    for (const token of [secret, ...peer.tokensIssued])
      await expectNoLeak(token, { texts: { stdout: run.stdout, stderr: run.stderr }, files: join(dir, 'files') });
  });
});
