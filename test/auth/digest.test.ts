import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, initTemplate, readTree } from '../helpers/cli.js';
import type { ApachePeer } from '../peers/apache.js';
import { DIGEST_REALM, start as startApache } from '../peers/apache-digest.js';
import { freePort, waitFor } from '../peers/daemon.js';
import { start as startLighttpd, type LighttpdDigestPeer } from '../peers/lighttpd-digest.js';
import { connect, docExample, expectNoLeak, harness } from './support.js';

/**
 * digest: HTTP Digest (RFC 7616) with `username` and `password`, against Apache's mod_auth_digest
 * (MD5, qop=auth, nc checked) and, for SHA-256, which Apache does not answer, lighttpd's mod_auth.
 * The servers' access logs name the user of each request: `- GET /health 401` is a challenge,
 * `alice GET /items 200` an answer Apache accepted.
 */

const PASSWORD = 'digest-pass-7f3a9c1e';
const files = {
  health: '{"ok":true}',
  items: '[{"id":1,"name":"one"},{"id":2,"name":"two"},{"id":3,"name":"three"}]',
};
const md5 = (text: string) => createHash('md5').update(text).digest('hex');
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
/** The password and what stands for it at this realm (H(user:realm:password)). */
const secrets = [PASSWORD, md5(`alice:${DIGEST_REALM}:${PASSWORD}`), sha256(`alice:${DIGEST_REALM}:${PASSWORD}`)];

let apache: ApachePeer;
let lighttpd: LighttpdDigestPeer;
let root: string;
beforeAll(async () => {
  [apache, lighttpd] = await Promise.all([
    startApache({ users: { alice: PASSWORD }, files }),
    startLighttpd({ users: { alice: PASSWORD }, files, algorithm: 'SHA-256' }),
  ]);
  root = await mkdtemp(join(tmpdir(), 'connector-auth-digest-'));
}, 60_000);
afterAll(async () => {
  await Promise.all([apache?.stop(), lighttpd?.stop()]);
  await rm(root, { recursive: true, force: true });
});

const configuration = (baseUrl: string, password = PASSWORD) => ({
  auth_method: 'digest',
  username: 'alice',
  password,
  base_url: baseUrl,
  probe_path: 'health',
  items_path: 'items',
});

let projects = 0;
const project = (values: Record<string, string>) =>
  initTemplate(root, `p${projects++}`, 'rest-api', values, { replaceConfiguration: true, auth: ['digest'] });

describe('digest through connector-auth debug', () => {
  it('Apache mod_auth_digest (MD5): one challenge, then its nonce answered with nc counting up; nothing leaks', async () => {
    const seen = (await apache.accessLog()).length;
    const dir = await project(configuration(apache.baseUrl));
    const run = await cli(['debug', dir, '--verbose']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Upserts\s+\|\s+3/);
    const log = (await apache.accessLog(seen + 3)).slice(seen);
    // The first request learns the nonce; every later one answers it at once (Apache checks nc).
    expect(log[0]).toBe('- GET /health 401');
    expect(log.slice(1).length).toBeGreaterThanOrEqual(2);
    expect(log.slice(1).every((line) => /^alice GET \/(health|items) 200$/.test(line))).toBe(true);
    expect(await apache.errorLog()).not.toMatch(/nonce-count check failed/);
    expectNoLeak([run.stdout, run.stderr, await readTree(join(dir, 'files'))], secrets);
  });

  it('lighttpd (SHA-256): exit 0, rows synced', async () => {
    const dir = await project(configuration(lighttpd.baseUrl));
    const run = await cli(['debug', dir]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Upserts\s+\|\s+3/);
    // lighttpd offers SHA-256 alone: the run could only have answered that.
    const challenge = (await fetch(`${lighttpd.baseUrl}health`)).headers.get('www-authenticate');
    expect(challenge).toMatch(/^Digest .*algorithm=SHA-256/);
    expect(challenge).not.toMatch(/MD5/);
    expectNoLeak([run.stdout, run.stderr, await readTree(join(dir, 'files'))], secrets);
  });

  it('the example of docs/auth/digest.md, as written there with base_url pointed at Apache: exit 0', async () => {
    const dir = await project({ ...(await docExample('digest.md')), base_url: apache.baseUrl });
    const run = await cli(['debug', dir]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Upserts\s+\|\s+3/);
  });

  it('a wrong password: exit 3 naming password, nothing leaks', async () => {
    const wrong = `${PASSWORD}-old`;
    const dir = await project(configuration(apache.baseUrl, wrong));
    const run = await cli(['debug', dir]);
    expect(run.code, run.stderr).toBe(3);
    expect(run.stderr).toContain("'password'");
    expectNoLeak(
      [run.stdout, run.stderr, await readTree(join(dir, 'files'))],
      [wrong, md5(`alice:${DIGEST_REALM}:${wrong}`)],
    );
  });

  it('a server that does not answer: exit 4', async () => {
    const dir = await project(configuration(`http://127.0.0.1:${await freePort()}/`));
    const run = await cli(['debug', dir]);
    expect(run.code, run.stderr).toBe(4);
    expectNoLeak([run.stdout, run.stderr], secrets);
  });
});

describe('digest follows a stale nonce', () => {
  it('Apache says stale=true once its 1-second nonce has gone unused: the request is answered again with the new nonce', async () => {
    const shortLived = await startApache({ users: { alice: PASSWORD }, files, nonceLifetimeSeconds: 1 });
    const h = harness();
    const { items_path: _items, ...values } = configuration(shortLived.baseUrl);
    const a = await connect(h, values);
    try {
      const first = await a.source.fetch('items');
      expect(first.status).toBe(200);
      // Apache's own clock, read from its Date header, two seconds past the nonce it last handed out.
      const handedOut = Date.parse(first.headers.get('date')!);
      const serverNow = async () => Date.parse((await fetch(`${shortLived.baseUrl}health`)).headers.get('date')!);
      expect(await waitFor(async () => (await serverNow()) >= handedOut + 2000, 15_000)).toBe(true);
      const second = await a.source.fetch('items');
      expect(second.status).toBe(200);
      expect(h.lines.filter((line) => line.includes('went stale'))).toHaveLength(1);
      const itemsAnswers = async () =>
        (await shortLived.accessLog()).filter((line) => line.endsWith('GET /items 401') || line.startsWith('alice '));
      // Apache logs a request after answering it: the last line may be on its way still.
      await waitFor(async () => (await itemsAnswers()).length >= 4, 30_000);
      const answered = await itemsAnswers();
      // The first challenge, the first answer, the stale nonce refused, the answer to the new one.
      expect(answered).toEqual([
        '- GET /items 401',
        'alice GET /items 200',
        'alice GET /items 401',
        'alice GET /items 200',
      ]);
    } finally {
      await a.close();
      await shortLived.stop();
    }
  });
});
