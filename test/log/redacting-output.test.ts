import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The output gate on a real process's stdout: a child installs it and writes, the test reads the
 * bytes that came out of the pipe. Node's write(string, encoding) prints the bytes the string
 * encodes, so a string written as 'hex' or 'base64' is checked as those bytes.
 */

const SECRET = 'SECRETTOKEN123';

/** Runs `body` in `node --import tsx` with the gate installed over a registry holding SECRET. */
function runGated(body: string): Promise<Buffer> {
  const log = fileURLToPath(new URL('../../src/log/index.ts', import.meta.url));
  const secrets = fileURLToPath(new URL('../../src/secrets/index.ts', import.meta.url));
  const script = `
    const { installRedactingOutput } = await import(${JSON.stringify(log)});
    const { secrets } = await import(${JSON.stringify(secrets)});
    secrets.register('token', ${JSON.stringify(SECRET)});
    installRedactingOutput();
    ${body}
  `;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(Buffer.concat(out)) : reject(new Error(`child exited ${code}: ${err}`)),
    );
  });
}

const hex = (text: string) => Buffer.from(text).toString('hex');
const b64 = (text: string) => Buffer.from(text).toString('base64');

describe('the redacting output gate', () => {
  it("prints what a 'hex' or 'base64' string encodes, not the string itself", async () => {
    const out = await runGated(`
      process.stdout.write(${JSON.stringify(hex('hello\n'))}, 'hex');
      process.stdout.write(${JSON.stringify(b64('world\n'))}, 'base64');
      process.stdout.write(${JSON.stringify(Buffer.from('bytes\n').toString('base64url'))}, 'base64url');
    `);
    expect(out.toString('utf8')).toBe('hello\nworld\nbytes\n');
  });

  it("redacts a secret written as a 'hex', 'base64' or 'HEX' string", async () => {
    const out = await runGated(`
      process.stdout.write(${JSON.stringify(hex(`a ${SECRET} b\n`))}, 'hex');
      process.stdout.write(${JSON.stringify(b64(`c ${SECRET} d\n`))}, 'base64');
      process.stdout.write(${JSON.stringify(hex(`e ${SECRET} f\n`).toUpperCase())}, 'HEX', () => process.stdout.write('callback ran\\n'));
    `);
    expect(out.toString('utf8')).toBe(
      'a <redacted:token> b\nc <redacted:token> d\ne <redacted:token> f\ncallback ran\n',
    );
  });

  it("redacts a string written with the encoding '' (Node's default, utf8)", async () => {
    const out = await runGated(`process.stdout.write(${JSON.stringify(`g ${SECRET} h\n`)}, '');`);
    expect(out.toString('utf8')).toBe('g <redacted:token> h\n');
  });

  it('redacts strings in character encodings (latin1, utf16le) and keeps their encoding', async () => {
    const out = await runGated(`
      process.stdout.write('caf\\u00e9 ${SECRET}\\n', 'latin1');
      process.stdout.write('${SECRET}\\n', 'utf16le');
    `);
    expect(
      out.equals(
        Buffer.concat([
          Buffer.from('caf\u00e9 <redacted:token>\n', 'latin1'),
          Buffer.from('<redacted:token>\n', 'utf16le'),
        ]),
      ),
    ).toBe(true);
  });

  it('passes bytes without a secret through unchanged, invalid UTF-8 included', async () => {
    const out = await runGated(`
      process.stdout.write(Buffer.from([0xff, 0xfe, 0x41, 0x0a]));
      process.stdout.write(Buffer.from(${JSON.stringify(`x ${SECRET}\n`)}));
    `);
    expect(
      out.equals(Buffer.concat([Buffer.from([0xff, 0xfe, 0x41, 0x0a]), Buffer.from('x <redacted:token>\n')])),
    ).toBe(true);
  });

  it('writeUnredacted, the one way past the gate, writes as given; stream.write still redacts', async () => {
    const log = fileURLToPath(new URL('../../src/log/index.ts', import.meta.url));
    const out = await runGated(`
      const { writeUnredacted } = await import(${JSON.stringify(log)});
      process.stdout.write('gated ${SECRET}\\n');
      writeUnredacted(process.stdout, 'past ${SECRET}\\n');
      process.stdout.write('gated again ${SECRET}\\n');
    `);
    expect(out.toString()).toBe(`gated <redacted:token>\npast ${SECRET}\ngated again <redacted:token>\n`);
  });
});
