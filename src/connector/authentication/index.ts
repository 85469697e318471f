// From a configuration to a method and a source that fit each other, before any network: keys checked,
// the method matched to what the source needs, the context they share made once.
export { authenticateConfiguration, authenticateResolved, resolveConfiguration } from './authenticate.js';
export type { AuthenticateOptions, Authenticated, ResolvedConfiguration } from './authenticate.js';
export { authenticate } from './library-mode.js';
export { checkConfigurationKeys } from './configuration-keys.js';
export { offeredMethods } from './match-capability.js';
export { methodCapabilities, ownMethods, resolveMethod, type OfferedMethod } from './offered-methods.js';
export { createAuthContext } from './auth-context.js';
