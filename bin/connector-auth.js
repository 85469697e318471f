#!/usr/bin/env node
import module from 'node:module';

// Node 22.1+ keeps the bytecode of the modules it compiled on disk: 8% of a `debug` run's CPU on
// Node 24 (bench/debug-template.ts). Node 20 has no such cache.
module.enableCompileCache?.();

// With --verbose, stack traces name the TypeScript sources the package ships (src/, through the
// source maps beside dist/): enabled before the CLI is imported, since Node applies source maps
// only to modules loaded after it is turned on. Without it, nothing is parsed: start-up stays fast.
if (process.argv.includes('--verbose')) process.setSourceMapsEnabled(true);
// The bundled start path (scripts/bundle.js): a few files for Node to link instead of ~140.
const { main } = await import('../dist/bundle/cli-main.js');

process.exitCode = await main(process.argv.slice(2));
// The command is over: a timer or socket left open by a connector (or a package it imports) must not
// keep the process alive. An unref'd timer fires only if something else still does.
setTimeout(() => process.exit(), 1000).unref();
