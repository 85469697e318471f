import type { CapabilityName, Credential } from '../../auth/index.js';
import { ConfigurationError } from '../../errors/index.js';
import type { SourceDefinition } from '../../sources/index.js';
import { methodCapabilities, methodsFor, offeredNames, type OfferedMethod } from './offered-methods.js';

/**
 * The one place an auth method meets a source: the first of the source's `needs` (its order of
 * preference) that the method provides (a built-in's line in built-in-methods.ts, a connector's own method's
 * `provides`). Read without loading a method, so refusing one and listing the ones that fit cost nothing.
 */
export function matchCapability(
  methodName: string,
  source: Pick<SourceDefinition, 'name' | 'needs'>,
  offered?: readonly OfferedMethod[],
): CapabilityName {
  // A custom source written before capabilities lists method names (`acceptsMethods`) instead.
  if (!Array.isArray(source.needs))
    throw new ConfigurationError(`the ${source.name} source declares no 'needs'`, {
      code: 'source_without_needs',
      hint: "say what the source needs of a credential, e.g. needs: ['httpRequest'] (it replaces acceptsMethods; see docs/recipes/adding-a-source.md)",
    });
  const fitting = offeredMethods(source.needs, offered);
  const names = offeredNames(offered);
  if (names && !names.includes(methodName))
    throw new ConfigurationError(
      `invalid configuration: this connector does not offer auth_method '${methodName}'; it offers ${fitting.join(', ')}`,
      { code: 'method_not_offered', key: 'auth_method', hint: `set 'auth_method' to one of ${fitting.join(', ')}` },
    );
  const provides = methodCapabilities(methodName, offered);
  const match = source.needs.find((need) => provides.includes(need));
  if (match) return match;
  throw new ConfigurationError(
    `invalid configuration: the ${source.name} source does not accept auth_method '${methodName}'; it accepts ${fitting.join(', ')}`,
    {
      code: 'method_not_accepted',
      key: 'auth_method',
      hint: `set 'auth_method' to one of ${fitting.join(', ')}`,
    },
  );
}

/** The methods a source accepts (built-in ones in built-in-methods.ts's order, then the connector's own), narrowed to those the connector offers. */
export function offeredMethods(needs: readonly CapabilityName[], offered?: readonly OfferedMethod[]): string[] {
  const fitting = methodsFor(needs, offered);
  const names = offeredNames(offered);
  return names ? fitting.filter((name) => names.includes(name)) : fitting;
}

/** The credential a method created has what it promised (its line in built-in-methods.ts or `provides`): else that promise is wrong. */
export function checkProvided(credential: Credential, capability: CapabilityName): void {
  if (credential[capability] === undefined)
    throw new Error(
      `auth_method '${credential.method}' is listed as providing '${capability}', but its credential has no such member: fix its line in built-in-methods.ts (or its provides)`,
    );
}
