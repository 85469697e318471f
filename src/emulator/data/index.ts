// The data set the emulator starts with: the --data file format, the built-in set, and timestamps
// as the service serves them.
export { defaultEmulatorData, DEFAULT_GROUP_SIZES } from './default-data.js';
export { parseEmulatorData, readEmulatorData, emulatorDataSchema, seedStore } from './emulator-data.js';
export type { EmulatorData, EmulatorDataInput } from './emulator-data.js';
export { utcConnector, utcGroup } from './utc-timestamps.js';
