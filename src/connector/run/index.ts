// The one run every host uses (start → probe → update()), the probe alone, and what a host provides.
export { runConnector } from './run-connector.js';
export type { RunConnectorOptions, RunResult } from './run-connector.js';
export { probeConnector } from './probe-connector.js';
export type { ProbeConnectorOptions, ProbeConnectorResult } from './probe-connector.js';
export type { Host, ProbeHost, RotationKeeper } from './host.js';
export { probeLine, summaryLine } from './run-lines.js';
