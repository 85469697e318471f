import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initTemplate, startCli } from '../../helpers/cli.js';
import { connectorClient } from './support.js';

/**
 * Where `serve` listens without `--host`: the partner SDK's guide asks for IPv4 and IPv6, so `::`
 * (dual-stack), reached here at 127.0.0.1 and at ::1. (Where the kernel has no IPv6 at all, binding
 * `::` fails and serve binds 0.0.0.0: that needs a kernel booted without IPv6, which no test here has.)
 */

let root: string;
let project: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'connector-auth-listen-'));
  project = await initTemplate(root, 'p', 'rest-api');
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function listening(run: ReturnType<typeof startCli>): Promise<{ host: string; port: number }> {
  const pattern = /listening on (\[::\]|0\.0\.0\.0):(\d+)/;
  let exited = false;
  void run.done.then(() => (exited = true));
  while (!pattern.test(run.output().stdout)) {
    if (exited) throw new Error(`serve exited: ${run.output().stdout}${run.output().stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const [, host, port] = pattern.exec(run.output().stdout)!;
  return { host: host!, port: Number(port) };
}

describe('serve without --host', () => {
  it('listens on :: and answers at 127.0.0.1 and at ::1', async () => {
    const run = startCli(['serve', project, '--port', '0']);
    try {
      const { host, port } = await listening(run);
      expect(host).toBe('[::]');
      for (const address of ['127.0.0.1', '[::1]']) {
        const client = connectorClient(port, address);
        const form = await client.configurationForm();
        expect(form.fields, address).toBeDefined();
        client.close();
      }
    } finally {
      run.child.kill('SIGTERM');
      expect((await run.done).code).toBe(0);
    }
  });
});
