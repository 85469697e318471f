// What the four commands share: `--config` read into the flat configuration, the connector loaded.
export { openSession } from './airbyte-session.js';
export type { AirbyteSession } from './airbyte-session.js';
export { flatten } from './airbyte-configuration.js';
