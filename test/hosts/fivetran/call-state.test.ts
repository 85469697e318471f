import { describe, expect, it } from 'vitest';
// internals: heldFormCount, the forms the registry holds for the calls, is the state folder's own
import { CallSecrets, heldFormCount } from '../../../src/hosts/fivetran/state/call-secrets.js';
import {
  checkpointJson,
  readRequestState,
  RESERVED_STATE_KEY,
  RotatedValues,
} from '../../../src/hosts/fivetran/state/index.js';
// internals: the sealing of a rotated value into the state, which the state folder keeps to itself
import { seal, unseal } from '../../../src/hosts/fivetran/state/sealed-value.js';
import { derivedForms, secrets as processSecrets } from '../../../src/secrets/index.js';

/**
 * What one call keeps to itself and what the process shares: each call's secrets, held in the
 * process-wide registry (the output gate's) only while a call or a kept rotated value holds them;
 * and the state Fivetran stores, which carries a rotated value sealed, never in clear.
 */

describe('CallSecrets', () => {
  it('a form the process registered for good (a secret default, at load) stays registered when a call that also saw it ends', () => {
    const form = 'permanent_default_secret_0b7e';
    processSecrets.register('signing_secret', form);
    const call = new CallSecrets();
    call.register('signing_secret', form);
    call.release();
    expect(processSecrets.has(form)).toBe(true);
    expect(processSecrets.redact(`x ${form} y`)).toBe('x <redacted:signing_secret> y');
    processSecrets.forget(derivedForms(form));
  });

  it("a call's secrets are redacted process-wide while it runs, refused only in its own rows, and let go when no call holds them", () => {
    const before = heldFormCount();
    const a = new CallSecrets();
    const b = new CallSecrets();
    a.register('token', 'call-a-token-value');
    b.register('token', 'call-b-token-value');
    b.register('password', 'call-a-token-value');
    expect(processSecrets.redact('call-a-token-value call-b-token-value')).toBe('<redacted:token> <redacted:token>');
    // Isolation: a call's own registry knows only what it registered.
    expect(a.contains('call-b-token-value')).toBe(false);

    a.release();
    // b still holds the value a registered too.
    expect(processSecrets.redact('call-a-token-value call-b-token-value')).toContain('<redacted:');
    expect(processSecrets.redact('call-a-token-value')).not.toContain('call-a-token-value');
    b.release();
    expect(processSecrets.redact('call-a-token-value call-b-token-value')).toBe(
      'call-a-token-value call-b-token-value',
    );
    expect(heldFormCount()).toBe(before);

    // Registered after the end (a connector's timer): redacted from then on, never released.
    a.register('late', 'registered-after-the-end');
    expect(processSecrets.redact('registered-after-the-end')).toBe('<redacted:late>');
    processSecrets.forget(derivedForms('registered-after-the-end'));
  });
});

describe('sealed rotated values in the state', () => {
  it('opens only with the configured value it was sealed under, and not once altered', () => {
    const text = seal(
      { value: 'rotated-refresh-token-2', rotatedAt: 5 },
      'configured-refresh-token-1',
      'refresh_token',
    );
    expect(text).not.toContain('rotated-refresh-token-2');
    expect(unseal(text, 'configured-refresh-token-1', 'refresh_token')).toEqual({
      value: 'rotated-refresh-token-2',
      rotatedAt: 5,
    });
    expect(unseal(text, 'another-configured-token', 'refresh_token')).toBeUndefined();
    expect(unseal(text, 'configured-refresh-token-1', 'client_secret')).toBeUndefined();
    const parts = text.split('.');
    parts[4] = Buffer.from('tampered').toString('base64url');
    expect(unseal(parts.join('.'), 'configured-refresh-token-1', 'refresh_token')).toBeUndefined();
    expect(unseal('v1.not.a.sealed.value', 'configured-refresh-token-1', 'refresh_token')).toBeUndefined();
  });

  it('a checkpoint carries the newest value sealed; the next request gives the connector its own state and the server the value', () => {
    const raw = { auth_method: 'oauth2_refresh_token', refresh_token: 'configured-rt-0001' };
    const registry = new CallSecrets();
    registry.register('refresh_token', raw.refresh_token);
    const first = new RotatedValues();
    expect(checkpointJson({ cursor: 3 }, '{"cursor":3}', raw, first)).toBe('{"cursor":3}');
    first.accept('refresh_token', raw.refresh_token, { value: 'rotated-rt-0002', rotatedAt: 10 });
    const json = checkpointJson({ cursor: 3 }, '{"cursor":3}', raw, first);
    expect(json).not.toContain('rotated-rt-0002');

    // Another server process: its memory is empty; the state brings the value back.
    const second = new RotatedValues();
    const request = readRequestState(json, raw, second);
    expect(request.state).toEqual({ cursor: 3 });
    expect(second.newest('refresh_token', raw.refresh_token)).toEqual({ value: 'rotated-rt-0002', rotatedAt: 10 });
    // An older sealed value never replaces a newer one the server holds.
    second.accept('refresh_token', raw.refresh_token, { value: 'rotated-rt-0003', rotatedAt: 20 });
    readRequestState(json, raw, second);
    expect(second.newest('refresh_token', raw.refresh_token)?.value).toBe('rotated-rt-0003');
    registry.release();
  });

  // A state that holds the call's secret is refused by the run, as on every host (test/hosts/state-guard.test.ts).
  it('refuses a state that holds our reserved member', () => {
    const state = { [RESERVED_STATE_KEY]: 1 };
    expect(() => checkpointJson(state, JSON.stringify(state), { token: 'x' }, new RotatedValues())).toThrow(/reserved/);
  });
});
