import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, exists, initTemplate } from '../helpers/cli.js';
import { expectNoLeak } from '../helpers/leak-check.js';
import { createCa, issueServer, type Authority } from '../peers/certificates.js';
import { MARIADB_START_TIMEOUT_MS, start, type MariadbPeer } from '../peers/mariadb.js';

/**
 * The database template on MySQL, as its README says to switch it: `source: 'mysql'`, backticks in
 * quoteIdentifier and the README's own MySQL loop (taken from the README, so the documented switch
 * is what runs). Through the built CLI against a real MariaDB over verified TLS: batches with ties
 * on the cursor, a second sync reading only changed rows, and a wrong password stopping before
 * files/ is touched, with no trace of either password in stdout, stderr, files/ or the warehouse.
 */

const USER = { name: 'reader', password: 'My-T3mplate/+pw?&x' };
const WRONG = 'Wr0ng-T3mplate/+my?&y';
const ROWS = 2500;

let ca: Authority;
let peer: MariadbPeer;
let root: string;

beforeAll(async () => {
  ca = createCa();
  [peer, root] = await Promise.all([
    start({
      ssl: issueServer(ca, { hosts: ['127.0.0.1'] }),
      database: 'sales',
      users: [{ ...USER, requireTls: true }],
      // 300 rows share each updated_at (microseconds included): ties cross the batch boundaries.
      setupSql:
        'CREATE TABLE orders (id BIGINT PRIMARY KEY, status VARCHAR(20) NOT NULL, amount DECIMAL(10,2) NOT NULL, updated_at DATETIME(6));\n' +
        `INSERT INTO orders SELECT seq, 'new', seq * 1.25, TIMESTAMP'2024-01-01 00:00:00.123456' + INTERVAL (seq DIV 300) SECOND FROM seq_1_to_${ROWS};\n` +
        "INSERT INTO orders VALUES (0, 'draft', 0, NULL);",
    }),
    mkdtemp(join(tmpdir(), 'connector-auth-database-mysql-')),
  ]);
}, MARIADB_START_TIMEOUT_MS);

afterAll(async () => {
  await peer?.stop();
  await rm(root, { recursive: true, force: true });
});

/** The template's connector.ts switched to MySQL exactly as templates/database/README.md says. */
async function switchToMysql(dir: string): Promise<void> {
  const readme = await readFile(join(dir, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## The same connector on MySQL or MariaDB'));
  const [quote, loop] = [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
  let code = await readFile(join(dir, 'connector.ts'), 'utf8');
  code = code.replace("source: 'postgres',", "source: 'mysql',");
  code = code.replace(/^ {2}return `"\$\{name\.replaceAll\('"', '""'\)\}"`;$/m, `  ${quote!.trim()}`);
  const start = code.indexOf('      const values: unknown[]');
  const end = code.indexOf(');\n', code.indexOf('await source.query(', start)) + 3;
  code = code.slice(0, start) + loop!.replace(/^(?=.)/gm, '      ') + code.slice(end);
  expect(code).toContain("source: 'mysql'");
  expect(code).toContain('limit ?');
  await writeFile(join(dir, 'connector.ts'), code);
}

const connection = (password: string) => ({
  auth_method: 'password',
  host: peer.host,
  port: String(peer.port),
  database: 'sales',
  user: USER.name,
  password,
  tls_ca_certificate: ca.certificatePem,
  table: 'orders',
  cursor_column: 'updated_at',
  primary_key: 'id',
  batch_size: '1000',
});

describe('templates/database on MySQL (the README switch)', () => {
  it('debug syncs in batches across cursor ties; the next reads only changed rows; a wrong password is exit 3 and leaks nothing', async () => {
    const dir = await initTemplate(root, 'mysql', 'database', connection(USER.password), {
      replaceConfiguration: true,
    });
    await switchToMysql(dir);
    const first = await cli(['debug', dir]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(new RegExp(`Upserts\\s+\\|\\s+${ROWS}\\b`));
    expect(first.stdout).toMatch(/Checkpoints\s+\|\s+3\b/);
    expect(JSON.parse(await readFile(join(dir, 'files', 'state.json'), 'utf8'))).toEqual({
      table: 'orders',
      cursor_column: 'updated_at',
      primary_key: 'id',
      cursor: '2024-01-01 00:00:08.123456',
      key: [String(ROWS)],
    });

    await peer.sql(
      `USE sales; UPDATE orders SET status = 'shipped', updated_at = NOW(6) WHERE id IN (7, 1200);\n` +
        `INSERT INTO orders VALUES (${ROWS + 1}, 'new', 1, NOW(6)), (${ROWS + 2}, 'new', 1, NOW(6));`,
    );
    const second = await cli(['debug', dir]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(/Upserts\s+\|\s+4\b/);

    const wrong = await initTemplate(root, 'mysql-wrong', 'database', connection(WRONG), {
      replaceConfiguration: true,
    });
    await switchToMysql(wrong);
    const refused = await cli(['debug', wrong]);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('mysql_password_rejected');
    expect(refused.stderr).toContain("check 'password'");
    expect(await exists(join(wrong, 'files'))).toBe(false);
    for (const secret of [USER.password, WRONG])
      await expectNoLeak(secret, {
        texts: {
          stdout: first.stdout + second.stdout + refused.stdout,
          stderr: first.stderr + second.stderr + refused.stderr,
        },
        files: join(dir, 'files'),
        warehouse: join(dir, 'files', 'warehouse.db'),
      });
  });
});
