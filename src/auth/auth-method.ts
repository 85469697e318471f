import type { z } from 'zod';
import type { CommonKeys, SourceFacts } from '../config/index.js';
import type { Logger } from '../log/index.js';
import type { TlsSettings } from '../network/index.js';
import type { SecretRegistry } from '../secrets/index.js';
import type { CapabilityName, Capabilities, OutgoingRequest } from './capabilities.js';

/**
 * The small interface every auth method implements. A method is one file under `methods/`: a zod
 * schema of its keys and a `create` that turns them into a Credential. Heavy SDKs a method needs are
 * imported inside `create`, and `built-in-methods.ts` imports the method file itself only when chosen.
 */

export interface AuthContext {
  readonly common: CommonKeys;
  /** The source's keys a method may read (its description, where the credential goes), typed. */
  readonly source: SourceFacts;
  /** The `tls_*` keys' settings, read and checked once, whoever asks first. */
  readonly tls: ConfiguredTls;
  readonly log: Logger;
  readonly secrets: SecretRegistry;
  /** Milliseconds since the epoch; a test may pass a fake clock. */
  readonly now: () => number;
  /** How a method waits (a token endpoint's backoff); a test may pass timers that advance its fake clock. */
  readonly timers?: Timers;
  /**
   * Writes a new value of a configuration key where the configuration lives (the local runner
   * rewrites configuration.json atomically; a library user passes a callback). Awaited before the
   * value is used, so a rotated refresh token is never lost.
   */
  readonly persistConfigurationValue?: (key: string, value: string) => Promise<void>;
  /**
   * For a host that serves several calls with the same configuration in one process (the gRPC host):
   * each use of a secret that rotates when used (a single-use refresh token) goes through it, one at a
   * time per configured value, and receives the newest value the process knows, which may be newer
   * than `held`, the one this run has. Absent: the run uses its own value.
   */
  readonly rotatingSecret?: RotatingSecret;
  /** The project's `files/` folder, for recovery files; absent in library use. */
  readonly filesDir?: string;
}

export interface ConfiguredTls {
  /** Whether `tls_client_*` keys are set (known without reading them). */
  readonly hasClientCertificate: boolean;
  /** The settings: CA, verification, the client certificate checked and its key decrypted. */
  read(): Promise<TlsSettings>;
}

/** See AuthContext.rotatingSecret. */
export type RotatingSecret = <T>(key: string, held: string, use: (current: string) => Promise<T>) => Promise<T>;

/** Waiting, injectable so a minute of backoff passes in a test's milliseconds. */
export interface Timers {
  sleep(ms: number): Promise<void>;
}

export const realTimers: Timers = { sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) };

/**
 * A credential: what a method's `create` returns. Besides the few members every source uses, it has
 * the capability members (capabilities.ts) of what it can do, and only those: a password credential
 * has `password` and nothing that could put it on an HTTP request.
 */
export interface Credential extends Partial<Capabilities> {
  /** The auth_method name. */
  readonly method: string;
  /** A phrase for messages, e.g. "basic auth as 'alice'"; never a secret. */
  readonly description: string;
  /** The configuration key to name when the source rejects this credential. */
  readonly rejectedKey: string;
  /** True when each request carries a secret (bearer, basic, key): such a request refuses plain http. */
  readonly sendsSecret: boolean;
  /** Runs as the first step of the probe (e.g. acquiring a token proves the client secret). */
  prepare?(): Promise<void>;
  /**
   * After the source refused the credential (a 401): forget the cached token or session the refused
   * request carried (`refused`, when the caller knows it; a token already replaced since is kept);
   * true when one retry may succeed.
   */
  invalidate?(refused?: OutgoingRequest): Promise<boolean> | boolean;
  close?(): Promise<void>;
}

/** A credential known to have the capabilities `Names` (what the connector's match guarantees a source). */
export type CredentialWith<Names extends CapabilityName> = Credential & Pick<Capabilities, Names>;

export interface AuthMethod<Keys extends z.ZodType = z.ZodType> {
  readonly name: string;
  /** One line for `--help`, `validate` and the docs. */
  readonly summary: string;
  readonly keys: Keys;
  /**
   * Rotation rule of the specification (section 5.3, rule 8): API keys and tokens every 90 days,
   * service account keys every 30. Drives the warning on `credential_issued_at`. Default 90.
   * `null`: configuration.json holds no long-lived secret to rotate (the workload's own identity).
   * A function when it depends on the keys (a client with a federated assertion has no secret).
   */
  readonly rotationDays?: number | null | ((keys: z.output<Keys>) => number | null);
  create(keys: z.output<Keys>, context: AuthContext): Promise<Credential> | Credential;
  /**
   * For a method whose long-lived credential a person grants in a browser (a refresh token):
   * obtains it (`connector-auth authorize`). Absent for every other method.
   */
  readonly authorize?: MethodAuthorization;
  /**
   * What the credential provides. A built-in method's line in `built-in-methods.ts` says it (so that matching
   * loads no method); a method a connector brings (`defineConnector({ auth: [method] })`) says it here.
   */
  readonly provides?: readonly CapabilityName[];
  /**
   * Keys of a connector's own method that hold secrets, beyond those the key catalogue and the secret
   * name pattern know: registered with the configuration, before anything runs.
   */
  readonly secretKeys?: readonly string[];
}

/** How a flow reaches the person who grants access: the URL to open, and how long to wait. */
export interface BrowserHandoff {
  /**
   * Shows the URL to open (prints it, may open a browser); called once, before the wait. In the
   * device flow, `device` says which code the person enters where (the URL may carry it already).
   */
  open(url: URL, device?: { userCode: string; verificationUri: URL }): void | Promise<void>;
  timeoutMs: number;
  /**
   * `loopback`: the browser comes back to this machine (authorization code + PKCE); `device`: the
   * person approves a code on any device (RFC 8628). Default: loopback when the method can.
   */
  flow?: 'loopback' | 'device';
}

export interface MethodAuthorization<Keys extends z.ZodType = z.ZodType> {
  /** The method's keys as authorize reads them: the credential it obtains may still be missing. */
  readonly keys: Keys;
  /**
   * Runs the grant; saves what it obtained through `context.persistConfigurationValue` (awaited)
   * and returns the keys it saved, never their values.
   */
  run(
    keys: z.output<Keys>,
    context: AuthContext,
    handoff: BrowserHandoff,
  ): Promise<{ saved: string[]; scope: string | undefined }>;
}

/** Identity function that keeps the authorization's key types flowing into `run`. */
export function defineMethodAuthorization<Keys extends z.ZodType>(
  authorization: MethodAuthorization<Keys>,
): MethodAuthorization<Keys> {
  return authorization;
}

/** Identity function that keeps the method's key types flowing into `create`. */
export function defineAuthMethod<Keys extends z.ZodType>(method: AuthMethod<Keys>): AuthMethod<Keys> {
  return method;
}
