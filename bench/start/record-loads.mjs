// Registers a resolve hook that appends every resolved module URL to $RECORD_LOADS_FILE.
import { register } from 'node:module';

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
