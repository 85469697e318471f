/**
 * Where compiled code is kept between runs: the user's cache directory, and V8's bytecode of the
 * bundle's big CommonJS files (zod, DuckDB's Node API) on a Node that keeps none itself. The lowest
 * layer: it imports none of ours, so the bundle's zod module can use it before anything else loads.
 */
export { type CacheKind, userCacheDirectory } from './cache-directory.js';
export { readCacheEntry, writeCacheEntry } from './cache-entry.js';
export { type CodeCacheOutcome, codeCacheOutcome, requireWithCodeCache } from './require-with-code-cache.js';
