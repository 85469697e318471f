import type { RotatingSecret } from '../../auth/index.js';
import type { Logger } from '../../log/index.js';
import type { Destination, StateStore } from '../definition/index.js';

/**
 * How a host keeps a secret the authorization server rotated (a single-use refresh token): the
 * local host rewrites configuration.json, Airbyte's sends the platform a CONTROL message with the
 * new configuration, Fivetran's keeps it in the server's memory and seals it into the state.
 */
export interface RotationKeeper {
  /** Keeps the new value of `key` where the next run finds it; resolves before the value is used. */
  keep(key: string, value: string): Promise<void>;
  /** A hold on secrets that rotate when used, for a host whose calls run side by side (AuthContext). */
  readonly rotatingSecret?: RotatingSecret;
}

/** What a host gives a probe (a test of the configuration): where log lines go, where a rotation goes. */
export interface ProbeHost {
  readonly log: Logger;
  readonly rotation?: RotationKeeper;
  /**
   * True when the host's process output is already gated by a registry every secret of this run
   * reaches (`serve`: the CLI's gate reads the process-wide registry, and each call's registry
   * holds its forms there). Otherwise the run gates stdout and stderr with its own registry, as
   * library use of `runConnector` needs; a server gating each call anew would stack one wrapper
   * per call on every write for the life of the process.
   */
  readonly outputGated?: boolean;
}

/**
 * What a host gives a run, and all it gives: where rows go, where the state goes, where a rotated
 * secret goes, where log lines go. The run owns the rest for every host alike: the row and state
 * guards, the probe line and the summary line (run-lines.ts).
 */
export interface Host extends ProbeHost {
  /** Opened only after the probe succeeded, so a failed run leaves nothing behind. */
  openDestination(): Promise<Destination & { close(): Promise<void> }>;
  /**
   * Loads the destination's code while the probe waits on the network; it must not create
   * anything. A failure here is left for openDestination to report.
   */
  prepareDestination?(): void;
  /** Where each checkpoint's state goes, once the run has checked it. */
  readonly state: StateStore;
  /** What the summary line adds for this host (records sent after a selection, say). */
  summaryNote?(): string;
}
