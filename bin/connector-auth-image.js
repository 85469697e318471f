#!/usr/bin/env node
// The image's entrypoint (templates/Dockerfile): Airbyte's commands to `connector-auth airbyte`,
// no arguments to `connector-auth serve`, anything else to the CLI, in this same process, so that
// Node is the container's PID 1 and receives the engine's SIGTERM itself.
import { imageArguments, keepDefaultStopSignals } from '../dist/cli/image-entrypoint.js';

keepDefaultStopSignals();
process.argv.splice(2, Infinity, ...imageArguments(process.argv.slice(2)));
await import('./connector-auth.js');
