import {
  AUTH_METHOD_NAMES,
  capabilitiesOf,
  loadAuthMethod,
  methodsProviding,
  type AuthMethod,
  type CapabilityName,
} from '../../auth/index.js';
import { ConfigurationError } from '../../errors/index.js';

/**
 * What `defineConnector({ auth })` lists: built-in method names, and methods the connector brings
 * itself (`defineAuthMethod({ name, keys, provides, create })` in its own code). A method of the
 * connector's own is matched, loaded, listed and described exactly as a built-in one is, from the
 * same few questions answered here; nothing in connector-auth has to know its name.
 */
export type OfferedMethod = string | AuthMethod;

/** The connector's own methods by name, each checked: it says what it provides, and takes no name already in use. */
export function ownMethods(offered: readonly OfferedMethod[] | undefined): ReadonlyMap<string, AuthMethod> {
  const own = new Map<string, AuthMethod>();
  for (const entry of offered ?? []) {
    if (typeof entry === 'string') continue;
    if (!Array.isArray(entry.provides) || entry.provides.length === 0)
      throw new ConfigurationError(`the connector's auth method '${entry.name}' does not say what it provides`, {
        code: 'method_without_provides',
        hint: "add provides: ['httpRequest'] (or 'bearerToken', 'password', …) to its defineAuthMethod",
      });
    if (AUTH_METHOD_NAMES.includes(entry.name) || own.has(entry.name))
      throw new ConfigurationError(`the connector's auth method '${entry.name}' takes a name already in use`, {
        code: 'method_name_taken',
        hint: `give the method a name of its own (not ${AUTH_METHOD_NAMES.includes(entry.name) ? 'a built-in method' : 'another of its methods'}'s)`,
      });
    own.set(entry.name, entry);
  }
  return own;
}

/** The names a connector offers; undefined when it lists none (every method the source accepts). */
export function offeredNames(offered: readonly OfferedMethod[] | undefined): string[] | undefined {
  return offered?.map((entry) => (typeof entry === 'string' ? entry : entry.name));
}

/** What a method's credential provides, without loading a built-in one. */
export function methodCapabilities(
  name: string,
  offered: readonly OfferedMethod[] | undefined,
): readonly CapabilityName[] {
  return ownMethods(offered).get(name)?.provides ?? capabilitiesOf(name) ?? [];
}

/** The methods whose credential provides one of `needs`: the built-in ones in built-in-methods.ts's order, then the connector's own. */
export function methodsFor(needs: readonly CapabilityName[], offered: readonly OfferedMethod[] | undefined): string[] {
  const own = [...ownMethods(offered).values()]
    .filter((method) => method.provides!.some((capability) => needs.includes(capability)))
    .map((method) => method.name);
  return [...methodsProviding(needs), ...own];
}

/** The method named: the connector's own by that name, else the built-in one (loaded now). */
export async function resolveMethod(name: string, offered: readonly OfferedMethod[] | undefined): Promise<AuthMethod> {
  return ownMethods(offered).get(name) ?? loadAuthMethod(name);
}
