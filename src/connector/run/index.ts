// The one run every host uses (start → probe → update()), and the probe alone.
export { runConnector } from './run-connector.js';
export type { RunConnectorOptions, RunResult } from './run-connector.js';
export { probeConnector } from './probe-connector.js';
export type { ProbeConnectorOptions, ProbeConnectorResult } from './probe-connector.js';
