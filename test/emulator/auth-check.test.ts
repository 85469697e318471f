import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningEmulator } from '../../src/emulator/index.js';
// internals: the emulator's credential comparisons, tested alone
import { basicMatches, bearerMatches } from '../../src/emulator/routes/auth-check.js';
import { emulator, raw } from './support.js';

/**
 * The emulator's credential checks and its request log: HTTP Basic accepts canonical base64 only
 * (Node's decoder alone would take sloppy encodings a real service refuses), and the log records
 * the Authorization scheme, never the credential, whatever separates the two.
 */

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await emulator();
});
afterAll(() => emu.stop());

const user = 'demo_user';
const password = 'demo-pass-5f1c9'; // "demo_user:demo-pass-5f1c9" is 25 bytes: its base64 ends in '=='
const good = Buffer.from(`${user}:${password}`).toString('base64');

/** The same bytes under a different last character: bits the decoder ignores were set. */
function nonZeroTrailingBits(encoded: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const at = encoded.replace(/=+$/, '').length - 1;
  const bytes = Buffer.from(encoded, 'base64');
  for (const c of alphabet) {
    const variant = encoded.slice(0, at) + c + encoded.slice(at + 1);
    if (variant !== encoded && Buffer.from(variant, 'base64').equals(bytes)) return variant;
  }
  throw new Error('no variant');
}

describe('HTTP Basic: canonical base64 only', () => {
  it('the base64 of user:password is accepted, with a space or a tab after the scheme', () => {
    expect(good.endsWith('==')).toBe(true);
    expect(basicMatches(`Basic ${good}`, user, password)).toBe(true);
    expect(basicMatches(`basic\t${good}`, user, password)).toBe(true);
  });

  const sloppy: [string, string][] = [
    ['over-padded', `${good}==`],
    ['data after the padding', `${good}AAAA`],
    ['padding, then more', `${good}=ZZZZ`],
    ['missing padding', good.replace(/=+$/, '')],
    ['half the padding', good.replace(/=$/, '')],
    ['non-zero trailing bits', nonZeroTrailingBits(good)],
  ];
  for (const [label, encoded] of sloppy) {
    it(`${label} is refused, although Node's decoder reads the same credentials`, () => {
      expect(Buffer.from(encoded, 'base64').toString('utf8')).toBe(`${user}:${password}`);
      expect(basicMatches(`Basic ${encoded}`, user, password)).toBe(false);
    });
  }

  it('padding in the middle is refused', () => {
    expect(basicMatches(`Basic ${good.slice(0, 4)}=${good.slice(4)}`, user, password)).toBe(false);
  });

  it('on the wire: the pipeline interface answers 200 to the canonical header and 401 to the sloppy ones', async () => {
    const { apiKey, apiSecret } = emu.credentials;
    const canonical = Buffer.from(`${apiKey}:${apiSecret}`).toString('base64');
    expect((await raw(emu, '/v1/groups', { authorization: `Basic ${canonical}` })).status).toBe(200);
    for (const encoded of [
      `${canonical}====`,
      `${canonical}AAAA`,
      canonical.replace(/=+$/, '') === canonical ? `${canonical}=` : canonical.replace(/=+$/, ''),
    ]) {
      expect((await raw(emu, '/v1/groups', { authorization: `Basic ${encoded}` })).status, encoded).toBe(401);
    }
  });
});

describe('the request log (recentRequests)', () => {
  it('records the scheme of `Bearer<TAB>token`, not the token', async () => {
    const token = emu.credentials.webhookToken;
    expect(bearerMatches(`Bearer\t${token}`, token)).toBe(true);
    expect((await raw(emu, '/api/v1/webhooks', { authorization: `Bearer\t${token}` })).status).toBe(200);
    expect(emu.recentRequests.at(-1)!.authorizationScheme).toBe('Bearer');
    expect(JSON.stringify(emu.recentRequests)).not.toContain(token);
  });

  it('records `(none)` for a header with no scheme word, and nothing without the header', async () => {
    const token = emu.credentials.webhookToken;
    for (const header of [token, 'OnlyLettersTokenNoScheme', `Bearer:${token}`, `Bearer,${token}`]) {
      await raw(emu, '/api/v1/webhooks', { authorization: header });
      expect(emu.recentRequests.at(-1)!.authorizationScheme, header).toBe('(none)');
    }
    await raw(emu, '/api/v1/webhooks', { authorization: null });
    expect(emu.recentRequests.at(-1)!.authorizationScheme).toBeUndefined();
    expect(JSON.stringify(emu.recentRequests)).not.toContain(token);
    expect(JSON.stringify(emu.recentRequests)).not.toContain('OnlyLettersTokenNoScheme');
  });
});
