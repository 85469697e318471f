#!/usr/bin/env -S node --min-semi-space-size=8
// A young generation of 8 MB from the start (V8 starts it at 1 MB and doubles it after each
// scavenge): a start allocates ~10 MB, which was four scavenges, 8-9 ms of CPU of every command the
// platforms start, each in a new container (docs/benchmarks.md). Not an option NODE_OPTIONS takes,
// hence the line above: Debian's env splits it (-S), and npm's Windows shims read it too.
// The image's entrypoint (templates/Dockerfile): Airbyte's commands to `connector-auth airbyte`,
// no arguments to `connector-auth serve`, anything else to the CLI, in this same process, so that
// Node is the container's PID 1 and receives the engine's SIGTERM itself.
import { imageArguments, keepDefaultStopSignals } from '../dist/cli/image-entrypoint.js';

keepDefaultStopSignals();
process.argv.splice(2, Infinity, ...imageArguments(process.argv.slice(2)));
await import('./connector-auth.js');
