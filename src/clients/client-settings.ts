import { ConfigurationError } from '../errors/index.js';
import type { PipelineConnection } from './pipeline/index.js';
import type { WebhookConnection } from './webhooks/index.js';

/**
 * Where the `pipeline` and `webhooks` commands find the service and its credentials. Each value is
 * taken from the first of: a command-line flag, the configuration file named with --configuration,
 * an environment variable. A file the user names explicitly beats whatever the shell happens to
 * export; the environment serves CI, where secrets arrive as variables.
 *
 * The file uses the keys of a connector configuration (`base_url`, `username`, `password`), so the
 * configuration.json of the pipeline-metadata template works as it is.
 */
export const SETTINGS_ENVIRONMENT = {
  baseUrl: 'CONNECTOR_AUTH_BASE_URL',
  apiKey: 'CONNECTOR_AUTH_API_KEY',
  apiSecret: 'CONNECTOR_AUTH_API_SECRET',
  webhookBaseUrl: 'CONNECTOR_AUTH_WEBHOOK_BASE_URL',
  webhookAuthMethod: 'CONNECTOR_AUTH_WEBHOOK_AUTH_METHOD',
  webhookToken: 'CONNECTOR_AUTH_WEBHOOK_TOKEN',
} as const;

interface Sources {
  /** Values of the configuration file (flat strings), or {} when none was given. */
  file: Readonly<Record<string, string>>;
  env: Readonly<Record<string, string | undefined>>;
  /** --base-url */
  baseUrl?: string;
  /** --auth (webhooks only) */
  authMethod?: string;
}

export interface PipelineSettings {
  connection: PipelineConnection;
  /** Where the secret came from, named in a 401's message: `password` or the variable. */
  rejectedKey: string;
}

export interface WebhookSettings {
  connection: WebhookConnection;
  rejectedKey: string;
}

type Found = { value: string; from: string };

function pick(
  sources: Sources,
  fileKeys: readonly string[],
  envName: string | undefined,
  flag?: string,
): Found | undefined {
  if (flag) return { value: flag, from: '--base-url' };
  for (const key of fileKeys) {
    const value = sources.file[key];
    if (value) return { value, from: key };
  }
  const value = envName ? sources.env[envName] : undefined;
  return value ? { value, from: envName! } : undefined;
}

function required(found: Found | undefined, what: string, fileKey: string, envName: string): Found {
  if (found) return found;
  throw new ConfigurationError(
    `missing ${what}: set '${fileKey}' in the configuration file or the environment variable ${envName}`,
    {
      code: 'missing_key',
      key: fileKey,
      hint: `pass --configuration FILE with '${fileKey}', or export ${envName}`,
    },
  );
}

function common(file: Readonly<Record<string, string>>): { timeoutSeconds?: number; tlsCaCertificate?: string } {
  const timeout = file.timeout_seconds ? Number(file.timeout_seconds) : undefined;
  return {
    ...(timeout !== undefined && Number.isFinite(timeout) && timeout > 0 ? { timeoutSeconds: timeout } : {}),
    ...(file.tls_ca_certificate ? { tlsCaCertificate: file.tls_ca_certificate } : {}),
  };
}

export function resolvePipelineSettings(sources: Sources): PipelineSettings {
  const env = SETTINGS_ENVIRONMENT;
  const baseUrl = required(
    pick(sources, ['base_url'], env.baseUrl, sources.baseUrl),
    'the service URL',
    'base_url',
    env.baseUrl,
  );
  const apiKey = required(pick(sources, ['username'], env.apiKey), 'the API key', 'username', env.apiKey);
  const apiSecret = required(pick(sources, ['password'], env.apiSecret), 'the API secret', 'password', env.apiSecret);
  return {
    connection: { baseUrl: baseUrl.value, apiKey: apiKey.value, apiSecret: apiSecret.value, ...common(sources.file) },
    rejectedKey: apiSecret.from,
  };
}

export function resolveWebhookSettings(sources: Sources): WebhookSettings {
  const env = SETTINGS_ENVIRONMENT;
  const baseUrl = required(
    pick(
      sources,
      ['webhook_base_url', 'base_url'],
      sources.env[env.webhookBaseUrl] ? env.webhookBaseUrl : env.baseUrl,
      sources.baseUrl,
    ),
    'the webhook service URL',
    'webhook_base_url',
    env.webhookBaseUrl,
  );
  const method =
    sources.authMethod ?? sources.file.webhook_auth_method ?? sources.env[env.webhookAuthMethod] ?? 'bearer';
  if (method !== 'bearer' && method !== 'basic')
    throw new ConfigurationError(`the webhook auth method must be bearer or basic`, {
      code: 'malformed_key',
      key: 'webhook_auth_method',
      hint: 'use --auth bearer (the default) or --auth basic',
    });
  const extra = { baseUrl: baseUrl.value, ...common(sources.file) };
  if (method === 'basic') {
    const username = required(pick(sources, ['username'], env.apiKey), 'the user name', 'username', env.apiKey);
    const password = required(pick(sources, ['password'], env.apiSecret), 'the password', 'password', env.apiSecret);
    return {
      connection: { authMethod: 'basic', username: username.value, password: password.value, ...extra },
      rejectedKey: password.from,
    };
  }
  const token = required(
    pick(sources, ['webhook_token', 'token'], env.webhookToken),
    'the webhook token',
    'webhook_token',
    env.webhookToken,
  );
  return { connection: { authMethod: 'bearer', token: token.value, ...extra }, rejectedKey: token.from };
}
