import { capabilitiesOf, methodsProviding, type CapabilityName, type Credential } from '../../auth/index.js';
import { ConfigurationError } from '../../errors/index.js';
import type { SourceDefinition } from '../../sources/index.js';

/**
 * The one place an auth method meets a source: the first of the source's `needs` (its order of
 * preference) that the method's catalogue line provides. Read from the catalogue, so refusing a
 * method and listing the ones that fit load no method.
 */
export function matchCapability(
  methodName: string,
  source: Pick<SourceDefinition, 'name' | 'needs'>,
  offered?: readonly string[],
): CapabilityName {
  // A custom source written before capabilities lists method names (`acceptsMethods`) instead.
  if (!Array.isArray(source.needs))
    throw new ConfigurationError(`the ${source.name} source declares no 'needs'`, {
      code: 'source_without_needs',
      hint: "say what the source needs of a credential, e.g. needs: ['httpRequest'] (it replaces acceptsMethods; see docs/recipes/adding-a-source.md)",
    });
  const fitting = offeredMethods(source.needs, offered);
  if (offered && !offered.includes(methodName))
    throw new ConfigurationError(
      `invalid configuration: this connector does not offer auth_method '${methodName}'; it offers ${fitting.join(', ')}`,
      { code: 'method_not_offered', key: 'auth_method', hint: `set 'auth_method' to one of ${fitting.join(', ')}` },
    );
  const provides = capabilitiesOf(methodName) ?? [];
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

/** The methods a source accepts, in the catalogue's order, narrowed to those the connector offers. */
export function offeredMethods(needs: readonly CapabilityName[], offered?: readonly string[]): string[] {
  const fitting = methodsProviding(needs);
  return offered ? fitting.filter((name) => offered.includes(name)) : fitting;
}

/** The credential a method created has what its catalogue line promised: else the line is wrong, a bug here. */
export function checkProvided(credential: Credential, capability: CapabilityName): void {
  if (credential[capability] === undefined)
    throw new Error(
      `auth_method '${credential.method}' is listed as providing '${capability}', but its credential has no such member: fix its catalogue line`,
    );
}
