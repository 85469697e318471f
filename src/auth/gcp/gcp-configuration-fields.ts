import { ConfigurationError } from '../../errors/index.js';

/**
 * The fields of a `gcp_credential_configuration` as it is read, and the errors that say what is wrong
 * with it, naming that key (the whole file is the one configuration value).
 */

export const KEY = 'gcp_credential_configuration';

/** A JSON object's member, as read so far. */
export type JsonObject = Record<string, unknown>;

/** A trimmed non-empty string, or undefined when absent; `where` is its path in the file, for messages. */
export function stringField(from: JsonObject, name: string, where = name): string | undefined {
  const v = from[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || v.trim() === '') throw invalid(`its "${where}" is not a non-empty string`);
  return v.trim();
}

export function urlField(raw: string, where: string): URL {
  const parsed = URL.parse(raw);
  if (!parsed) throw invalid(`its "${where}" is not an absolute URL`);
  return parsed;
}

export function invalid(what: string): ConfigurationError {
  return new ConfigurationError(
    `invalid configuration for auth_method 'gcp_workload_identity': key '${KEY}' is not a usable credential configuration: ${what}`,
    {
      code: 'gcp_credential_configuration_invalid',
      key: KEY,
      hint: `put the content of the file that \`gcloud iam workload-identity-pools create-cred-config\` writes in '${KEY}'`,
    },
  );
}

export function unsupported(what: string): ConfigurationError {
  return new ConfigurationError(
    `auth_method 'gcp_workload_identity' reads the workload's token from a file or a URL only; '${KEY}' names ${what}`,
    {
      code: 'gcp_credential_source_unsupported',
      key: KEY,
      hint: 'create the configuration with --credential-source-file (the file the platform writes the token to) or --credential-source-url',
    },
  );
}
