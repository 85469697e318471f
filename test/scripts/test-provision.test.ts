import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain JavaScript without declarations: it runs before anything is built
import { ensurePackages, filesNeeding, skippedReport } from '../peers/provision.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const absent = { 'peers/sshd.ts': { package: 'openssh-server', present: () => false } };

describe('npm test: the peers a fresh machine lacks', () => {
  it('installs nothing and says why when it is not root', () => {
    const unavailable = ensurePackages(absent, { uid: 1000, hasApt: true });
    expect([...unavailable]).toEqual([['openssh-server', expect.stringContaining('needs root')]]);
  });

  it('says so on a system without apt-get', () => {
    const unavailable = ensurePackages(absent, { uid: 0, hasApt: false });
    expect(unavailable.get('openssh-server')).toMatch(/not a Debian system/);
  });

  it('has nothing to do when every package is there', () => {
    expect(ensurePackages({ 'peers/sshd.ts': { package: 'openssh-server', present: () => true } }).size).toBe(0);
  });

  it('skips exactly the test files that reach the missing peer, directly or through a helper, with the reason', () => {
    const unavailable = new Map([['openssh-server', 'not root']]);
    const skipped: { file: string; packages: string[] }[] = filesNeeding(root, unavailable);
    const files = skipped.map((s) => s.file);
    expect(files).toContain('test/sources/sftp.test.ts'); // imports the sshd peer itself
    expect(files).toContain('test/network/ssh-tunnel.test.ts');
    expect(files.some((f) => f.startsWith('test/secrets/'))).toBe(false);
    expect(files).not.toContain('test/auth/mtls.test.ts'); // nginx, which is there
    const report: string = skippedReport(skipped, unavailable, false);
    expect(report).toContain('test/sources/sftp.test.ts: needs openssh-server (not root)');
    expect(report).toMatch(/fails; set CONNECTOR_AUTH_ALLOW_MISSING_PEERS=1/);
    expect(skippedReport(skipped, unavailable, true)).toMatch(/accepted as a partial run/);
  });
});
