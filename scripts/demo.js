/**
 * `npm run demo` (after `npm run build`): the whole story offline, in about ten seconds.
 *
 *  1. start the emulator of the pipeline management interface in this process, on a free loopback port;
 *  2. copy templates/pipeline-metadata into a temporary project and point its configuration.json at
 *     the emulator with the demo credentials;
 *  3. run `connector-auth debug <project>` as a child process, its output shown as it happens;
 *  4. read the row counts from the project's DuckDB warehouse (schema `default_schema`);
 *  5. run again with a wrong password: one line of error, exit code 3, the password nowhere.
 *
 * Exits non-zero if any of that does not hold, so CI can run it too.
 */
import { spawn } from 'node:child_process';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulator } from '../dist/emulator/index.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'connector-auth.js');
const template = join(root, 'templates', 'pipeline-metadata');
const WRONG_PASSWORD = 'not-the-demo-secret-7c41';

const bold = (text) => (process.stdout.isTTY ? `\x1b[1m${text}\x1b[0m` : text);
const step = (text) => console.log(`\n${bold(`▶ ${text}`)}`);
const failures = [];
const check = (ok, what) => {
  console.log(`  ${ok ? '✓' : '✗'} ${what}`);
  if (!ok) failures.push(what);
};

/** Runs the CLI; `capture` keeps its output (and still shows it), otherwise a person sees it live. */
function runCli(args, { capture = false } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: root,
      env: { ...process.env, NO_COLOR: '1' },
      stdio: capture ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d) => (stdout += d));
    child.stderr?.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

async function rowCounts(warehouse) {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const instance = await DuckDBInstance.create(warehouse);
  const connection = await instance.connect();
  try {
    const counts = {};
    for (const table of ['groups', 'connectors']) {
      const reader = await connection.runAndReadAll(
        `SELECT count(*) FROM default_schema.${table} WHERE NOT _fivetran_deleted`,
      );
      counts[table] = Number(reader.getRows()[0][0]);
    }
    return counts;
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

const emulator = await startEmulator();
const work = await mkdtemp(join(tmpdir(), 'connector-auth-demo-'));
const project = join(work, 'pipeline-metadata');
try {
  step(
    `emulator listening on ${emulator.url} (${emulator.store.groupCount} groups, ${emulator.store.connectorCount} connectors)`,
  );
  await cp(template, project, { recursive: true });
  const configuration = {
    auth_method: 'basic',
    base_url: emulator.pipelineUrl,
    probe_path: 'v1/groups?limit=1',
    username: emulator.credentials.apiKey,
    password: emulator.credentials.apiSecret,
    timeout_seconds: '10',
  };
  await writeFile(join(project, 'configuration.json'), `${JSON.stringify(configuration, null, 2)}\n`);
  console.log(`  project: ${project} (copied from templates/pipeline-metadata)`);

  step(`connector-auth debug ${project}`);
  const good = await runCli(['debug', project]);
  check(good.code === 0, `exit code 0 (got ${good.code})`);

  step('rows in files/warehouse.db (DuckDB, schema default_schema)');
  const counts = await rowCounts(join(project, 'files', 'warehouse.db'));
  console.log(`  default_schema.groups      ${counts.groups}`);
  console.log(`  default_schema.connectors  ${counts.connectors}`);
  check(counts.groups === emulator.store.groupCount, `every group synced (${emulator.store.groupCount})`);
  check(
    counts.connectors === emulator.store.connectorCount,
    `every connector synced (${emulator.store.connectorCount})`,
  );

  step(`connector-auth debug ${project}   — with a wrong password`);
  await writeFile(
    join(project, 'configuration.json'),
    `${JSON.stringify({ ...configuration, password: WRONG_PASSWORD }, null, 2)}\n`,
  );
  const bad = await runCli(['debug', project], { capture: true });
  const output = bad.stdout + bad.stderr;
  console.log(output.trimEnd().replace(/^/gm, '  │ '));
  console.log(`  exit code ${bad.code}`);
  check(bad.code === 3, `exit code 3: credentials rejected (got ${bad.code})`);
  const errorLines = output.split('\n').filter((line) => line.startsWith('error'));
  check(
    errorLines.length === 1 && errorLines[0].includes("check 'password'"),
    "the error is one line naming the key to fix ('password')",
  );
  const forms = [
    WRONG_PASSWORD,
    Buffer.from(WRONG_PASSWORD).toString('base64'),
    Buffer.from(`${configuration.username}:${WRONG_PASSWORD}`).toString('base64'),
    encodeURIComponent(WRONG_PASSWORD),
  ];
  check(
    forms.every((form) => !output.includes(form)),
    'the wrong password appears nowhere in the output (raw, base64, in the Basic header)',
  );
} finally {
  await emulator.stop();
  await rm(work, { recursive: true, force: true });
}

if (failures.length > 0) {
  console.error(`\ndemo FAILED: ${failures.join('; ')}`);
  process.exitCode = 1;
} else {
  console.log(`\n${bold('demo OK')}`);
}
