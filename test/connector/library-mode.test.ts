import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOSTILE_SECRET, expectNoLeak } from '../helpers/leak-check.js';
import { start, type FaultyApi } from '../peers/faulty-api.js';

/**
 * Without the runner (the README's `authenticate(configuration)`): a script that prints its own
 * configuration, or dies of an error that quotes a secret, prints no secret. `authenticate()` gates
 * the process's stdout and stderr; `protectProcessOutput()` also routes uncaught errors through
 * the gate. The built package (`npm test` builds first), in a process of its own, as a user runs it.
 */

const DIST = fileURLToPath(new URL('../../dist/index.js', import.meta.url));
let peer: FaultyApi;
beforeAll(async () => {
  peer = await start({ auth: { kind: 'basic', username: 'alice', password: HOSTILE_SECRET } });
});
afterAll(() => peer.stop());

function runScript(body: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const script = `
    import { authenticate, protectProcessOutput } from ${JSON.stringify(DIST)};
    const configuration = { auth_method: 'basic', username: 'alice', password: ${JSON.stringify(HOSTILE_SECRET)}, base_url: ${JSON.stringify(peer.url)}, probe_path: 'health' };
    ${body}
  `;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

describe('library mode', () => {
  it('authenticate() gates stdout and stderr: the caller printing its own configuration shows no secret', async () => {
    const run = await runScript(`
      const auth = await authenticate(configuration);
      const probe = await auth.probe();
      console.log(probe.outcome);
      console.log(configuration);
      console.error(JSON.stringify({ configuration }));
      process.stdout.write(Buffer.from(configuration.password));
      await auth.close();
    `);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('HTTP 200');
    expect(run.stdout).toContain("password: '<redacted:password>'");
    await expectNoLeak(HOSTILE_SECRET, { texts: { stdout: run.stdout, stderr: run.stderr } });
  });

  it('protectProcessOutput() also prints an uncaught error through the gate, then exits 1', async () => {
    const run = await runScript(`
      protectProcessOutput();
      const auth = await authenticate(configuration);
      setTimeout(() => { throw new Error('the API rejected ' + JSON.stringify(configuration)); }, 0);
    `);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^fatal: Error: the API rejected \{.*"password":"<redacted:password>"/);
    await expectNoLeak(HOSTILE_SECRET, { texts: { stdout: run.stdout, stderr: run.stderr } });
  });
});
