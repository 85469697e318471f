import type { LoadedConnector } from '../../connector/index.js';
import type { Logger } from '../../log/index.js';
import type { Grpc } from './protocol.js';
import type { UpdateStream } from './records/index.js';
import type { CallSecrets, RotatedValues } from './state/index.js';

/** What every call of one server shares; a call's own state (configuration, secrets, source) is not here. */
export interface ServeContext {
  readonly connector: LoadedConnector;
  readonly grpc: Grpc;
  readonly rotated: RotatedValues;
  /** The logger of one call: its lines redacted with its secrets. */
  log(registry: CallSecrets): Logger;
  /** Running Updates, told to stop at their next checkpoint on SIGTERM. */
  readonly updates: Set<UpdateStream>;
  readonly stopping: () => boolean;
}
