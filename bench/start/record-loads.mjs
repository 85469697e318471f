// Records the modules a process loads into $RECORD_LOADS_FILE, one URL a line: every module the
// ES loader resolves (a resolve hook), and at exit every CommonJS module in require.cache, which
// require() fills without the ES loader (DuckDB's Node API, and the bundle's zod, loaded through
// src/code-cache/).
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { pathToFileURL } from 'node:url';

register(
  'data:text/javascript,' +
    encodeURIComponent(`
import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  if (process.env.RECORD_LOADS_FILE) appendFileSync(process.env.RECORD_LOADS_FILE, result.url + '\\n');
  return result;
}`),
);

const required = createRequire(import.meta.url).cache;
process.on('exit', () => {
  const files = Object.keys(required).filter((id) => id.startsWith('/') || /^[A-Za-z]:/.test(id));
  if (process.env.RECORD_LOADS_FILE && files.length > 0)
    appendFileSync(process.env.RECORD_LOADS_FILE, files.map((file) => pathToFileURL(file).href).join('\n') + '\n');
});
