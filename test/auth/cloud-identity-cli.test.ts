import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, initTemplate, readTree } from '../helpers/cli.js';
import { start, type CloudMetadataPeer } from '../peers/cloud-metadata.js';
import { expectNoLeak } from './support.js';

/** The cloud identity methods through the built CLI: `connector-auth debug` on a scaffolded REST project. */

let peer: CloudMetadataPeer;
let root: string;
beforeAll(async () => {
  peer = await start();
  root = await mkdtemp(join(tmpdir(), 'connector-auth-cloud-identity-'));
});
afterAll(async () => {
  await peer.stop();
  await rm(root, { recursive: true, force: true });
});

const project = (name: string, configuration: Record<string, string>) =>
  initTemplate(
    root,
    name,
    'rest-api',
    { base_url: peer.apiUrl, probe_path: 'health', items_path: 'items', metadata_endpoint: peer.url, ...configuration },
    { replaceConfiguration: true, auth: 'all' },
  );

describe('connector-auth debug with cloud identity', () => {
  it('gcp_metadata: exit 0, rows synced with the workload token, no token printed or stored', async () => {
    const dir = await project('gcp', { auth_method: 'gcp_metadata' });
    const run = await cli(['debug', dir, '--verbose']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Upserts\s+\|\s+2/);
    expectNoLeak(
      [run.stdout, run.stderr, await readTree(join(dir, 'files'))],
      peer.issued.map((t) => t.value),
    );
  });

  it('azure_managed_identity with an unknown resource: exit 3, one line naming resource, nothing written', async () => {
    const dir = await project('azure', { auth_method: 'azure_managed_identity', resource: 'api://no-such-api' });
    const run = await cli(['debug', dir]);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('invalid_resource');
    expect(run.stderr).toContain("'resource'");
    expect(await readTree(join(dir, 'files'))).toBe('');
  });
});
