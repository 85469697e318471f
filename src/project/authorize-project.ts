import type { BrowserHandoff } from '../auth/index.js';
import { commonKeys } from '../config/index.js';
import { createAuthContext, resolveMethod } from '../connector/index.js';
import { ConfigurationError } from '../errors/index.js';
import type { Logger } from '../log/index.js';
import { secrets } from '../secrets/index.js';
import { prepareProject } from './check-project.js';
import { createConfigurationPersister } from './persist-configuration-value.js';

/**
 * `connector-auth authorize`: a person grants the connector's long-lived credential in a browser
 * (the refresh token of `oauth2_refresh_token`), and it is written into configuration.json the way
 * a rotated one is (atomically, only that value changed; a recovery file if the write fails).
 * Nothing is written unless the whole grant succeeded.
 */

export interface AuthorizeResult {
  configuration: string;
  authMethod: string;
  /** Keys written to the configuration (never their values). */
  saved: string[];
  /** The scope the server granted, when it said. */
  scope: string | undefined;
}

export async function authorizeProject(options: {
  project?: string;
  configurationPath?: string;
  log: Logger;
  handoff: BrowserHandoff;
}): Promise<AuthorizeResult> {
  const { paths, configuration, connector } = await prepareProject(options);
  const common = configuration.parse(commonKeys, 'all sources');
  const method = await resolveMethod(common.auth_method, connector?.auth);
  if (!method.authorize) {
    throw new ConfigurationError(
      `auth_method '${method.name}' has nothing to grant in a browser: authorize obtains the refresh token of auth_method 'oauth2_refresh_token'`,
      {
        code: 'nothing_to_authorize',
        key: 'auth_method',
        hint: "set 'auth_method' to oauth2_refresh_token (with 'authorization_url'), or run probe instead",
      },
    );
  }
  const keys = configuration.parse(method.authorize.keys, `auth_method '${method.name}'`);
  const context = createAuthContext(configuration, {
    common,
    log: options.log,
    secrets,
    now: Date.now,
    filesDir: paths.files,
    persistConfigurationValue: createConfigurationPersister({
      configurationPath: paths.configuration,
      filesDir: paths.files,
      log: options.log,
    }),
  });
  const { saved, scope } = await method.authorize.run(keys, context, options.handoff);
  return { configuration: paths.configuration, authMethod: method.name, saved, scope };
}
