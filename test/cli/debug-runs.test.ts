import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, exists, initTemplate, startCli, type CliRun } from '../helpers/cli.js';
import { start, type FaultyApi } from '../peers/faulty-api.js';

/**
 * Issue 22, the local run's faults: two runs of one project, a stop by SIGINT or SIGTERM, a state
 * file that is a directory, a warehouse that is damaged, locked or cannot be written, and what a
 * failed run leaves behind. The built CLI against a loopback peer, each fault with its exit code
 * and its one line.
 */

const PASSWORD = 'pw-Local+Runs/0n=';
let root: string;
const peers: FaultyApi[] = [];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'connector-auth-runs-'));
});
afterAll(async () => {
  await Promise.all(peers.map((peer) => peer.stop()));
  await rm(root, { recursive: true, force: true });
});

async function peerWith(options: Omit<Parameters<typeof start>[0], 'auth'>): Promise<FaultyApi> {
  const peer = await start({ auth: { kind: 'basic', username: 'alice', password: PASSWORD }, ...options });
  peers.push(peer);
  return peer;
}

let projects = 0;
const project = (peer: FaultyApi) =>
  initTemplate(
    root,
    `p${++projects}`,
    'rest-api',
    { auth_method: 'basic', username: 'alice', password: PASSWORD, base_url: peer.url, probe_path: 'health' },
    { replaceConfiguration: true },
  );

function errorLine(run: CliRun): string {
  const lines = run.stderr
    .trim()
    .split('\n')
    .filter((line) => line.startsWith('error'));
  expect(lines, run.stderr).toHaveLength(1);
  return lines[0]!;
}

async function until(condition: () => boolean | Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function rows(warehouse: string, sql = 'SELECT count(*) FROM tester.items'): Promise<unknown[][]> {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const db = await DuckDBInstance.create(warehouse, { access_mode: 'READ_ONLY' });
  const connection = await db.connect();
  try {
    return (await connection.runAndReadAll(sql)).getRows();
  } finally {
    connection.closeSync();
    db.closeSync();
  }
}

const state = async (dir: string) =>
  JSON.parse(await readFile(join(dir, 'files', 'state.json'), 'utf8')) as Record<string, unknown>;

describe('one run per project', () => {
  it('a second debug of the same project fails at once, before reading the state or probing', async () => {
    const peer = await peerWith({ items: 25, pageSize: 10, pageDelayMs: 600 });
    const dir = await project(peer);
    const first = startCli(['debug', dir]);
    await until(() => peer.requests.some((r) => r.path === '/items'), 'the first run to sync');
    const before = peer.requests.length;
    const second = await cli(['debug', dir]);
    expect(second.code, second.stderr).toBe(1);
    expect(errorLine(second)).toMatch(
      /^error \[project_busy\]: another connector-auth debug \(PID \d+\) is using the project \S+ — wait for it to finish; if no such process is running, delete \S+\.lock$/,
    );
    expect(second.stdout).toBe('');
    // The loser asked the source nothing: it stopped before its probe.
    expect(peer.requests.slice(before).filter((r) => r.path === '/health')).toEqual([]);
    const done = await first.done;
    expect(done.code, done.stderr).toBe(0);
    expect(await rows(join(dir, 'files', 'warehouse.db'))).toEqual([[25n]]);
    // The lock went with the first run: a third run goes ahead.
    expect((await cli(['debug', dir])).code).toBe(0);
  });
});

describe('SIGINT and SIGTERM', () => {
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    it(`${signal} during update(): exit ${code}, the last checkpoint's state kept, the warehouse closed cleanly, the next run resumes`, async () => {
      const peer = await peerWith({ items: 60, pageSize: 10, pageDelayMs: 500 });
      const dir = await project(peer);
      const run = startCli(['debug', dir]);
      await until(() => exists(join(dir, 'files', 'state.json')), 'the first checkpoint');
      run.child.kill(signal);
      const stopped = await run.done;
      expect(stopped.code, stopped.stderr).toBe(code);
      expect(errorLine(stopped)).toMatch(
        new RegExp(
          `^error \\[interrupted\\]: interrupted by ${signal}: \\S+state\\.json holds the state of the last checkpoint \\(\\d+ in this run\\) and the next run resumes there; the warehouse was closed cleanly \\(rows written since the last checkpoint stay and are written again\\) — run connector-auth debug again to go on$`,
        ),
      );
      expect((await readdir(join(dir, 'files'))).sort()).toEqual(['state.json', 'warehouse.db']);
      const saved = await state(dir);
      const [[written]] = (await rows(join(dir, 'files', 'warehouse.db'))) as [[bigint]];
      expect(Number(written)).toBeGreaterThanOrEqual(Number(saved.cursor));

      const before = peer.requests.length;
      const again = await cli(['debug', dir]);
      expect(again.code, again.stderr).toBe(0);
      expect(peer.requests.slice(before).find((r) => r.path === '/items')?.query).toBe(`?cursor=${saved.cursor}`);
      expect(await rows(join(dir, 'files', 'warehouse.db'))).toEqual([[60n]]);
    });
  }
});

describe('a stop in each phase before update()', () => {
  it('SIGTERM while the probe waits on a source that stalls: exit 143 at once, nothing written', async () => {
    const peer = await peerWith({ faults: { '/health': { kind: 'stall-mid-body' } } });
    const dir = await project(peer);
    const configuration = JSON.parse(await readFile(join(dir, 'configuration.json'), 'utf8')) as Record<string, string>;
    await writeFile(join(dir, 'configuration.json'), JSON.stringify({ ...configuration, timeout_seconds: '300' }));
    const run = startCli(['debug', dir]);
    await until(() => peer.requests.some((r) => r.path === '/health'), 'the probe to reach the source');
    run.child.kill('SIGTERM');
    const stopped = await run.done;
    expect(stopped.code, stopped.stderr).toBe(143);
    expect(errorLine(stopped)).toMatch(
      /^error \[interrupted\]: interrupted by SIGTERM before the sync started: nothing was written/,
    );
    expect(await exists(join(dir, 'files', 'state.json'))).toBe(false);
  });
});

describe('a stop after update() returned', () => {
  // A source whose close() never ends (a driver waiting on a socket that no longer answers) holds the
  // run in its closing phase: the first SIGTERM cannot finish it cleanly, so the stop bound ends it.
  const connector = `import { defineConnector, defineSource, z } from 'connector-auth';
const stuck = defineSource({
  name: 'stuck-on-close',
  summary: 'a source whose close never ends',
  keys: z.object({}),
  needs: ['httpRequest'],
  async connect() {
    return {
      async probe() { return { target: 'nothing', outcome: 'ok', elapsedMs: 0 }; },
      close() { process.stderr.write('closing the source\\n'); return new Promise<void>(() => setInterval(() => {}, 1000)); },
    };
  },
});
export default defineConnector({
  source: stuck,
  schema: () => [{ table: 'items', primary_key: ['id'] }],
  async update({ op }) {
    await op.upsert('items', { id: 1 });
    await op.checkpoint({ done: true });
  },
});
`;

  /** A debug run of that connector, sent SIGTERM once its source has begun to close. */
  async function stoppedWhileClosing() {
    const dir = await project(await peerWith({}));
    await writeFile(join(dir, 'connector.ts'), connector);
    const run = startCli(['debug', dir]);
    await until(() => run.output().stderr.includes('closing the source'), 'the run to reach its closing phase');
    run.child.kill('SIGTERM');
    return { dir, run };
  }

  it('SIGTERM while the source is closing: ended by the stop bound with exit 143, the rows and the checkpoint kept', async () => {
    const { dir, run } = await stoppedWhileClosing();
    const stopped = await run.done;
    expect(stopped.code, stopped.stderr).toBe(143);
    expect(stopped.stderr).toMatch(/SIGTERM: the run did not stop within 10 s; ending it now/);
    expect(await state(dir)).toEqual({ done: true });
    expect(await rows(join(dir, 'files', 'warehouse.db'))).toEqual([[1n]]);
  });

  it('a second SIGTERM in the closing phase ends the process at once', async () => {
    const { run } = await stoppedWhileClosing();
    await until(() => run.output().stderr.includes('SIGTERM: stopping'), 'the first stop to be taken');
    run.child.kill('SIGTERM');
    const stopped = await run.done;
    expect(stopped.code, stopped.stderr).toBe(143);
    expect(stopped.stderr).toMatch(/SIGTERM again: stopping at once/);
    expect(stopped.stderr).not.toMatch(/did not stop within/);
  });
});

describe('the project files', () => {
  it('state.json replaced by a directory: debug says so before probing, reset deletes nothing', async () => {
    const peer = await peerWith({});
    const dir = await project(peer);
    expect((await cli(['debug', dir])).code).toBe(0);
    await rm(join(dir, 'files', 'state.json'));
    await mkdir(join(dir, 'files', 'state.json'));
    const before = peer.requests.length;
    const run = await cli(['debug', dir]);
    expect(run.code).toBe(2);
    expect(errorLine(run)).toMatch(
      /^error \[project_file_not_a_file\]: \S+\/files\/state\.json is a directory, not the file the local runner keeps there — move or remove \S+ yourself \(reset deletes files only\), then run again$/,
    );
    expect(peer.requests.length).toBe(before);
    const reset = await cli(['reset', dir, '--yes']);
    expect(reset.code).toBe(2);
    expect(errorLine(reset)).toMatch(/nothing was deleted: move or remove \S+\/state\.json yourself/);
    expect(await exists(join(dir, 'files', 'warehouse.db'))).toBe(true);
  });

  it("a warehouse file that is not a DuckDB database: exit 1 with DuckDB's own words and a hint naming reset", async () => {
    const peer = await peerWith({});
    const dir = await project(peer);
    await mkdir(join(dir, 'files'));
    await writeFile(join(dir, 'files', 'warehouse.db'), 'not a database '.repeat(1000));
    const run = await cli(['debug', dir]);
    expect(run.code).toBe(1);
    expect(errorLine(run)).toMatch(
      /^error \[warehouse_damaged\]: warehouse: opening \S+warehouse\.db failed: IO Error: The file "\S+warehouse\.db" exists, but it is not a valid DuckDB database file! — \S+warehouse\.db cannot be read as a warehouse: move it away, or start over with 'connector-auth reset'/,
    );
    expect((await cli(['reset', dir, '--yes'])).code).toBe(0);
    expect((await cli(['debug', dir])).code).toBe(0);
  });

  it('a warehouse another process holds open: exit 1 naming that process', async () => {
    const peer = await peerWith({});
    const dir = await project(peer);
    expect((await cli(['debug', dir])).code).toBe(0);
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const holder = await DuckDBInstance.create(join(dir, 'files', 'warehouse.db'));
    try {
      const run = await cli(['debug', dir]);
      expect(run.code).toBe(1);
      expect(errorLine(run)).toMatch(
        new RegExp(
          `^error \\[warehouse_locked\\]: warehouse: \\S+warehouse\\.db is open in another process \\(PID ${process.pid}\\) — wait for that process`,
        ),
      );
    } finally {
      holder.closeSync();
    }
  });

  it("a warehouse that cannot be written after it was opened (a file size limit): DuckDB's message, a code, a hint", async () => {
    const peer = await peerWith({});
    const dir = await project(peer);
    await writeFile(
      join(dir, 'connector.ts'),
      `import { defineConnector } from 'connector-auth';
export default defineConnector({
  source: 'rest',
  async update({ op }) {
    for (let i = 0; i < 20000; i++) await op.upsert('big', { id: i, text: 'x'.repeat(200) + i });
    await op.checkpoint({ done: true });
  },
});
`,
    );
    // Writes past 2 MiB fail with EFBIG (SIGXFSZ ignored, as a shell can set it): the write-ahead log hits it.
    const run = await startCli(['debug', dir], {
      command: ['sh', '-c', `trap '' XFSZ; ulimit -f 4096; exec "$0" "$@"`, process.execPath],
    }).done;
    expect(run.code, run.stderr).toBe(1);
    expect(errorLine(run)).toMatch(
      /^error \[warehouse_io_error\]: warehouse: writing upserts to table "big" failed: .*Could not write file "\S+warehouse\.db\.wal": File too large — check that files\/ is writable and the disk has room; if \S+ is damaged, start over with 'connector-auth reset'$/,
    );
  });
});

describe('what a failed run leaves', () => {
  /** Every file under files/, by name, as bytes. */
  async function filesOf(dir: string): Promise<Record<string, Buffer>> {
    const files = join(dir, 'files');
    const names = (await readdir(files)).sort();
    return Object.fromEntries(await Promise.all(names.map(async (name) => [name, await readFile(join(files, name))])));
  }

  it('a wrong credential after a good run: the warehouse, opened while the connector loaded and probed, and the state are byte for byte as they were', async () => {
    const peer = await peerWith({ items: 5 });
    const dir = await project(peer);
    const good = await cli(['debug', dir]);
    expect(good.code, good.stderr).toBe(0);
    const before = await filesOf(dir);
    expect(Object.keys(before)).toEqual(expect.arrayContaining(['state.json', 'warehouse.db']));
    const configuration = JSON.parse(await readFile(join(dir, 'configuration.json'), 'utf8')) as Record<string, string>;
    await writeFile(
      join(dir, 'configuration.json'),
      JSON.stringify({ ...configuration, password: 'not-the-password' }),
    );
    const refused = await cli(['debug', dir]);
    expect(refused.code, refused.stderr).toBe(3);
    expect(errorLine(refused)).toMatch(/^error \[http_401\]: .*'password'/);
    expect(await filesOf(dir)).toEqual(before);
  });

  it('every row issued before the failure, those after the last checkpoint included; the state of that checkpoint; a re-run writes them again', async () => {
    const peer = await peerWith({});
    const dir = await project(peer);
    await writeFile(
      join(dir, 'connector.ts'),
      `import { defineConnector } from 'connector-auth';
export default defineConnector({
  source: 'rest',
  schema: () => [{ table: 'items', primary_key: ['id'] }],
  async update({ op, state }) {
    const from = typeof state.next === 'number' ? state.next : 1;
    for (let id = from; id < from + 3; id++) await op.upsert('items', { id, run: from });
    await op.checkpoint({ next: from + 3 });
    for (let id = from + 3; id < from + 5; id++) await op.upsert('items', { id, run: from });
    if (from === 1) throw new Error('the source went away after the checkpoint');
    await op.checkpoint({ next: from + 5 });
  },
});
`,
    );
    const failed = await cli(['debug', dir]);
    expect(failed.code).toBe(1);
    expect(errorLine(failed)).toBe(
      "error [update_failed]: the connector's update() failed: the source went away after the checkpoint — see the connector code; run with --verbose for the stack trace",
    );
    expect(await state(dir)).toEqual({ next: 4 });
    expect(await rows(join(dir, 'files', 'warehouse.db'), 'SELECT id, run FROM tester.items ORDER BY id')).toEqual([
      [1n, 1n],
      [2n, 1n],
      [3n, 1n],
      [4n, 1n],
      [5n, 1n],
    ]);
    const resumed = await cli(['debug', dir]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(await state(dir)).toEqual({ next: 9 });
    const after = await rows(join(dir, 'files', 'warehouse.db'), 'SELECT id, run FROM tester.items ORDER BY id');
    expect(after.slice(0, 5)).toEqual([
      [1n, 1n],
      [2n, 1n],
      [3n, 1n],
      [4n, 4n],
      [5n, 4n],
    ]);
    expect(after).toHaveLength(8);
  });
});
