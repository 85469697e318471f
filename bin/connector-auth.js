#!/usr/bin/env node
import module from 'node:module';

// Node 22.1+ keeps the bytecode of the modules it compiled on disk: 8% of a `debug` run's CPU on
// Node 24 (bench/debug-template.ts). Node 20 has no such cache.
module.enableCompileCache?.();
const { main } = await import('../dist/cli/main.js');

process.exitCode = await main(process.argv.slice(2));
