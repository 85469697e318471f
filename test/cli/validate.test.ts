import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, exists, initTemplate, leakForms, offerMethods } from '../helpers/cli.js';
import { generateKeyPair, type SshKeyPair } from '../peers/sshd.js';

/**
 * `connector-auth validate` checks everything that can be checked without the network: the keys
 * through their schemas, and what their values mean (key material, addresses, the SSH tunnel's
 * settings), as `debug` checks them before its first connection. Every address in these
 * configurations is a listener that counts the connections it gets: it must get none.
 */

let root: string;
let listener: Server;
let port: number;
let connections = 0;
let key: SshKeyPair;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'connector-auth-validate-'));
  key = await generateKeyPair({ type: 'ed25519' });
  listener = createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  port = (listener.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((resolve) => listener?.close(resolve));
  await rm(root, { recursive: true, force: true });
});

/** A bastion at the counting listener, with the key and a fingerprint of the right form. */
const tunnel = () => ({
  ssh_tunnel_host: '127.0.0.1',
  ssh_tunnel_port: String(port),
  ssh_tunnel_user: 'jump',
  ssh_tunnel_private_key: key.privateKey,
  ssh_tunnel_host_key_fingerprint: key.fingerprint,
});

const oauth = () => ({
  auth_method: 'oauth2_client_credentials',
  token_url: `http://127.0.0.1:${port}/token`,
  client_id: 'connector',
  client_secret: 'validate-client-secret/+?&=',
  base_url: `http://127.0.0.1:${port}/v1/`,
});

/** The template's placeholder password replaced: a configuration that still holds one is refused first. */
const database = () => ({ password: 'validate-db-password/+?&=' });

let projects = 0;
const project = (template: string, overrides: Record<string, string>) =>
  initTemplate(root, `p${++projects}`, template, overrides);

describe('connector-auth validate', () => {
  it('configurations that can work validate, and nothing is sent anywhere: rest with OAuth, postgres through a tunnel, s3 at an endpoint', async () => {
    const dirs = [
      await project('rest-api', oauth()),
      await project('database', { host: '127.0.0.1', port: String(port), ...database(), ...tunnel() }),
      await project('file-storage', {
        endpoint: `http://127.0.0.1:${port}`,
        aws_access_key_id: 'AKIAVALIDATETEST0001',
        aws_secret_access_key: 'validate-aws-secret/+?&=',
        ...tunnel(),
      }),
    ];
    for (const dir of dirs) {
      const run = await cli(['validate', dir, '--json']);
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ ok: true });
      expect(await exists(join(dir, 'files'))).toBe(false);
    }
    expect(connections).toBe(0);
  });

  it('what the values mean is checked too: exit 2, one line naming the key, as debug would before connecting', async () => {
    const cases: [string, Record<string, string>, string][] = [
      ['rest-api', { ...oauth(), token_url: 'http://idp.example.com/token' }, 'token_url'],
      [
        'rest-api',
        {
          auth_method: 'gcp_workload_identity',
          gcp_credential_configuration: 'not json',
          base_url: `http://127.0.0.1:${port}/`,
        },
        'gcp_credential_configuration',
      ],
      [
        'database',
        {
          host: '127.0.0.1',
          port: String(port),
          ...database(),
          ...tunnel(),
          ssh_tunnel_password: 'bastion-password/+?&=',
        },
        'ssh_tunnel_password',
      ],
      [
        'database',
        {
          host: '127.0.0.1',
          port: String(port),
          ...database(),
          ...tunnel(),
          ssh_tunnel_private_key: 'not a key at all',
        },
        'ssh_tunnel_private_key',
      ],
      [
        'database',
        { host: '127.0.0.1', port: String(port), ...database(), ...tunnel(), ssh_tunnel_host_key_fingerprint: '' },
        'ssh_tunnel_host_key_fingerprint',
      ],
    ];
    for (const [template, overrides, named] of cases) {
      const dir = await project(template, overrides);
      // gcp_workload_identity: a method the rest-api template does not name.
      if (overrides.auth_method === 'gcp_workload_identity') await offerMethods(dir, [overrides.auth_method]);
      const run = await cli(['validate', dir]);
      expect(run.code, `${named}: ${run.stderr}`).toBe(2);
      const errors = run.stderr
        .trim()
        .split('\n')
        .filter((line) => line.startsWith('error'));
      expect(errors).toHaveLength(1);
      expect(errors[0]).toContain(`'${named}'`);
      expect(run.stdout).not.toContain('configuration valid');
      for (const form of [
        ...leakForms('validate-client-secret/+?&='),
        ...leakForms('bastion-password/+?&='),
        ...leakForms('validate-db-password/+?&='),
      ])
        expect(run.stdout + run.stderr).not.toContain(form);
      expect(await exists(join(dir, 'files'))).toBe(false);
    }
    expect(connections).toBe(0);
  });
});
