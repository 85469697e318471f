import { AuthenticationError, SourceUnreachableError, isConnectorAuthError } from '../../../errors/index.js';
import type { Logger } from '../../../log/index.js';
import { encryptedOrLoopback, HeaderList } from '../../../network/index.js';
import type { SecretRegistry } from '../../../secrets/index.js';
import type { BrowserHandoff, Timers } from '../../auth-method.js';
import { DECLINED_HINT } from './authorization-code.js';
import type { ClientAuthentication } from '../index.js';
import type { TokenEndpoint, TokenResponse } from '../../token-endpoint/index.js';

/**
 * The device authorization grant (RFC 8628), for a machine with no browser the authorization server
 * can send back to (an SSH session, a container): the server hands out a device code and a short
 * user code; the person opens the verification URI on any device, enters the user code, signs in
 * and consents; meanwhile the device code is polled at the token endpoint, no faster than the
 * server's `interval` (5 s more after each `slow_down`), until a token, a refusal, or the deadline.
 */

export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

export interface DeviceAuthorizationOptions {
  /** The device authorization endpoint (`device_authorization_url`). */
  deviceEndpoint: TokenEndpoint;
  /** The token endpoint the device code is polled at. */
  endpoint: TokenEndpoint;
  authenticateClient: ClientAuthentication;
  scope: string | undefined;
  parameters: URLSearchParams;
  handoff: BrowserHandoff;
  secrets: SecretRegistry;
  log: Logger;
  description: string;
  now: () => number;
  timers: Timers;
}

interface DeviceAuthorization {
  deviceCode: string;
  userCode: string;
  verificationUri: URL;
  verificationUriComplete: URL | undefined;
  expiresInSeconds: number;
  intervalSeconds: number;
}

/** RFC 8628 §3.2: the interval when the server gives none; §3.5: what each `slow_down` adds. */
const DEFAULT_INTERVAL_SECONDS = 5;
const SLOW_DOWN_SECONDS = 5;

export async function deviceAuthorizationGrant<T>(
  o: DeviceAuthorizationOptions,
  use: (token: TokenResponse) => Promise<T>,
): Promise<T> {
  const body = new URLSearchParams(o.parameters);
  if (o.scope) body.set('scope', o.scope);
  const headers = new HeaderList();
  await o.authenticateClient({ body, headers });
  const device = await o.deviceEndpoint.postForm(body, headers, (json) => readDeviceAuthorization(json, o));

  await o.handoff.open(device.verificationUriComplete ?? device.verificationUri, {
    userCode: device.userCode,
    verificationUri: device.verificationUri,
  });
  const waitMs = Math.min(device.expiresInSeconds * 1000, o.handoff.timeoutMs);
  o.log.info(
    `${o.description}: waiting for the code ${device.userCode} to be approved at ${device.verificationUri.href} (up to ${Math.round(waitMs / 1000)}s)`,
  );
  const deadline = o.now() + waitMs;
  let intervalMs = device.intervalSeconds * 1000;

  for (;;) {
    const remaining = deadline - o.now();
    if (remaining <= 0) throw notApproved(o, device, waitMs);
    await o.timers.sleep(Math.min(intervalMs, remaining));
    let token: TokenResponse;
    try {
      token = await o.endpoint.request(DEVICE_CODE_GRANT, async () => {
        const request = { body: new URLSearchParams({ device_code: device.deviceCode }), headers: new HeaderList() };
        await o.authenticateClient(request);
        return request;
      });
    } catch (error) {
      const code = isConnectorAuthError(error) ? error.code : undefined;
      if (code === 'oauth_authorization_pending') continue;
      if (code === 'oauth_slow_down') {
        intervalMs += SLOW_DOWN_SECONDS * 1000;
        continue;
      }
      if (code === 'oauth_expired_token') throw notApproved(o, device, waitMs);
      if (code === 'oauth_access_denied') {
        throw new AuthenticationError(
          `${o.description}: the code ${device.userCode} was declined at ${device.verificationUri.href} (access_denied)`,
          {
            code: 'oauth_access_denied',
            key: 'scope',
            hint: DECLINED_HINT,
          },
        );
      }
      throw error;
    }
    return use(token);
  }
}

function readDeviceAuthorization(
  json: Record<string, unknown> | undefined,
  o: DeviceAuthorizationOptions,
): DeviceAuthorization {
  const deviceCode = json?.device_code;
  // The device code is the credential being polled with: registered before anything can print it.
  if (typeof deviceCode === 'string') o.secrets.register('device_code', deviceCode);
  // Google says verification_url (its older draft's name); the RFC, verification_uri.
  const verificationUri = httpsUrl(json?.verification_uri ?? json?.verification_url);
  const userCode = json?.user_code;
  const expiresIn = Number(json?.expires_in);
  if (
    typeof deviceCode !== 'string' ||
    !deviceCode ||
    typeof userCode !== 'string' ||
    !userCode ||
    !verificationUri ||
    !(expiresIn > 0)
  ) {
    throw new SourceUnreachableError(
      `${o.description}: the device authorization endpoint answered without ${!json ? 'a JSON object' : 'a device_code, a user_code, an https verification_uri and a positive expires_in'}`,
      {
        code: 'device_authorization_malformed',
        key: 'device_authorization_url',
        hint: "check that 'device_authorization_url' is the server's device authorization endpoint (RFC 8628)",
      },
    );
  }
  const interval = Number(json!.interval);
  return {
    deviceCode,
    userCode,
    verificationUri,
    verificationUriComplete: httpsUrl(json!.verification_uri_complete),
    expiresInSeconds: expiresIn,
    intervalSeconds: interval > 0 ? interval : DEFAULT_INTERVAL_SECONDS,
  };
}

/** A URL the person is sent to: https, or http on this machine (a local server). */
function httpsUrl(value: unknown): URL | undefined {
  const url = typeof value === 'string' ? URL.parse(value) : null;
  return url && encryptedOrLoopback(url) ? url : undefined;
}

function notApproved(o: DeviceAuthorizationOptions, device: DeviceAuthorization, waitMs: number): AuthenticationError {
  return new AuthenticationError(
    `${o.description}: the code ${device.userCode} was not approved at ${device.verificationUri.href} within ${Math.round(waitMs / 1000)}s`,
    {
      code: 'authorization_not_completed',
      key: 'device_authorization_url',
      hint: `run authorize --device again and approve the new code in time (the server's codes live ${device.expiresInSeconds}s; --timeout SECONDS bounds the wait)`,
    },
  );
}
