import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { start, type OidcPeer } from '../peers/oidc-provider.js';
import { jsonOut, scaffold, scratch, writeConfiguration } from './support.js';

/**
 * Issue 24, point 8: what a person reads when something is wrong. A mistyped option without the
 * argument parser's raw text (and its unbalanced quote); "did you mean" for commands, options, keys
 * and auth_method; the methods listed once; an OAuth refusal's key named once; a token endpoint whose
 * host name does not resolve: exit 4 at once naming token_url, not five retries saying "retry later".
 */

let peer: OidcPeer;
let work: Awaited<ReturnType<typeof scratch>>;
let dir: string;
beforeAll(async () => {
  [peer, work] = await Promise.all([start(), scratch('errors')]);
  dir = await scaffold(work.root, 'project', 'rest-api');
});
afterAll(async () => {
  await peer?.stop();
  await work?.remove();
});

const occurrences = (text: string, part: string) => text.split(part).length - 1;

describe('error messages', () => {
  it('a mistyped option: one line, the option meant, no parser text', async () => {
    const run = await cli(['debug', dir, '--configuraton', 'other.json']);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      "error [invalid_arguments]: unknown option '--configuraton' for connector-auth debug; did you mean '--configuration'? — see connector-auth debug --help\n",
    );
    const missing = await cli(['debug', dir, '--state']);
    expect(missing.stderr).toBe(
      "error [invalid_arguments]: option '--state' needs a value — see connector-auth debug --help\n",
    );
    const global = await cli(['validate', dir, '--jsn']);
    expect(global.stderr).toContain("did you mean '--json'?");
    for (const text of [run.stderr, missing.stderr, global.stderr]) {
      expect(text).not.toMatch(/To specify a positional argument|Unknown option|"--/);
      expect(occurrences(text, "'") % 2).toBe(0);
    }
  });

  it('a mistyped command: did you mean, in one line', async () => {
    const run = await cli(['valdate', dir]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      "error [invalid_arguments]: unknown command 'valdate'; did you mean 'validate'? — see connector-auth --help\n",
    );
  });

  it('a mistyped auth_method: did you mean, the methods listed once', async () => {
    await writeConfiguration(dir, {
      auth_method: 'bearr',
      base_url: 'https://api.example.com/v1',
      token: 'a-token-of-some-length',
    });
    const run = await cli(['validate', dir, '--json']);
    expect(run.code).toBe(2);
    expect(jsonOut(run)).toMatchObject({
      code: 'unknown_auth_method',
      key: 'auth_method',
      hint: "check 'auth_method': did you mean 'bearer'?",
    });
    expect(String(jsonOut(run).message)).toMatch(
      /^invalid configuration: key 'auth_method' names 'bearr', which is not a known method; /,
    );
    expect(occurrences(run.stderr, 'oauth2_client_credentials')).toBe(1);
  });

  it('an OAuth refusal names the key to check once', async () => {
    const wrong = 'not-the-secret-of-this-client-5e2c';
    await writeConfiguration(dir, {
      auth_method: 'oauth2_client_credentials',
      token_url: peer.tokenUrl,
      client_id: peer.clients.basic.id,
      client_secret: wrong,
      scope: 'api:read',
      base_url: peer.apiUrl,
      probe_path: 'health',
    });
    const run = await cli(['probe', dir]);
    expect(run.code, run.stderr).toBe(3);
    expect(run.stderr).toMatch(/error \[oauth_invalid_client\]/);
    expect(occurrences(run.stderr, "'client_secret'")).toBe(1);
    expect(run.stderr).not.toContain(wrong);
  });

  it('a token_url host that does not resolve: exit 4 at once, naming token_url, one attempt', async () => {
    await writeConfiguration(dir, {
      auth_method: 'oauth2_client_credentials',
      token_url: 'https://auth.connector-auth-test.invalid/oauth/token',
      client_id: 'client',
      client_secret: 'a-client-secret-of-some-length',
      base_url: peer.apiUrl,
      probe_path: 'health',
      timeout_seconds: '30',
    });
    const run = await cli(['probe', dir, '--json', '--verbose']);
    expect(run.code, run.stderr).toBe(4);
    expect(jsonOut(run)).toMatchObject({
      code: 'enotfound',
      key: 'token_url',
      hint: "check the host name in 'token_url'",
    });
    expect(run.stderr).toContain("host name 'auth.connector-auth-test.invalid' not found (DNS)");
    // Not retried: a name that does not resolve will not resolve on a second try.
    expect(run.stderr).not.toMatch(/retrying|attempt 2|retry later/);
  });
});
