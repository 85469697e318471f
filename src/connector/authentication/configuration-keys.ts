import { z } from 'zod';
import { KEY_CATALOGUE, keyHint } from '../../config/index.js';
import { ConfigurationError, closestName } from '../../errors/index.js';
import type { Logger } from '../../log/index.js';
import { ownMethods, type OfferedMethod } from './offered-methods.js';

/**
 * Keys of configuration.json that nothing reads. A key no schema declares is not read by anyone:
 * not by an auth method, a source, the runner, nor the connector (whose keys are those of its
 * `configuration` schema, or its `secretKeys`). With `item_path` for `items_path`, a run would sync
 * the default path and succeed; with `probe_pth`, probe the base URL and report a 404 about the
 * wrong thing. So every command that reads a configuration checks its keys first:
 *
 * - a key within a typo's reach of a known key is an error (exit 2) naming both: it is almost
 *   always that key, misspelt, and running without it does something the author did not ask for;
 * - any other unknown key is a warning: it may be there for a person, or for another tool reading
 *   the same file, and refusing it would make configuration.json ours alone.
 *
 * Known keys are every key of the catalogue (all methods and sources, not only the ones in use:
 * `usrname` under `bearer` is still a typo of `username`), the connector's own and its own methods'.
 */
export function checkConfigurationKeys(
  keys: readonly string[],
  connector:
    | {
        configuration?: z.ZodType | undefined;
        secretKeys?: readonly string[] | undefined;
        auth?: readonly OfferedMethod[] | undefined;
      }
    | undefined,
  log: Logger,
): { unknownKeys: string[] } {
  const declared = connectorKeys(connector?.configuration);
  // A schema whose keys cannot be listed could read any key: nothing can be called unknown.
  if (declared === undefined) return { unknownKeys: [] };
  const methodKeys = [...ownMethods(connector?.auth).values()].flatMap((method) => connectorKeys(method.keys) ?? []);
  const own = [...declared, ...(connector?.secretKeys ?? []), ...methodKeys];
  const known = new Set([...Object.keys(KEY_CATALOGUE), ...own]);
  const unknownKeys = keys.filter((key) => !known.has(key));
  for (const key of unknownKeys) {
    const near = closestName(key, known);
    if (near !== undefined) {
      throw new ConfigurationError(
        `invalid configuration: key '${key}' is not a key any schema reads; did you mean '${near}'?`,
        {
          code: 'unknown_key',
          key,
          hint: keyHint.rename(key, near),
        },
      );
    }
  }
  for (const key of unknownKeys)
    log.warning(`configuration key '${key}' is not read by the connector, its auth method or its source (ignored)`);
  return { unknownKeys };
}

/**
 * The keys a connector's `configuration` schema reads. A plain object's are its shape's; any other
 * schema's come from its JSON Schema (inputs, before coercion), which costs ~2 ms at every start.
 */
function connectorKeys(schema: z.ZodType | undefined): string[] | undefined {
  if (!schema) return [];
  if (schema instanceof z.ZodObject) return Object.keys(schema.shape);
  try {
    const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as {
      properties?: Record<string, unknown>;
    };
    return Object.keys(json.properties ?? {});
  } catch {
    return undefined;
  }
}
