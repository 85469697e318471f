import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { connectorSchema, groupSchema, webhookSchema, type Connector, type Group } from '../../clients/index.js';
import { withoutByteOrderMark } from '../../config/index.js';
import { ConfigurationError } from '../../errors/index.js';
import type { EmulatorStore, Transformation } from '../store/index.js';
import { utcConnector, utcGroup } from './utc-timestamps.js';

/**
 * The JSON file an emulator is seeded from (`connector-auth emulator --data FILE`). Records are
 * validated with the same schemas the clients use, so the emulator never serves a record a client
 * would refuse; `connector-auth emulator --print-data` writes the default set in this format.
 */

const transformationSchema = z.union([
  z.string().min(1),
  z.object({
    id: z.string().min(1),
    name: z.string().optional(),
    version: z.number().int().positive().optional(),
    latest_version: z.number().int().positive().optional(),
  }),
]);

export const emulatorDataSchema = z.object({
  groups: z.array(groupSchema).default([]),
  connectors: z.array(connectorSchema).default([]),
  // `secret`: deliveries are signed with it (X-Fivetran-Signature-256); fetch and list show it masked.
  webhooks: z
    .array(
      webhookSchema.extend({ id: z.number().int().nonnegative().optional(), secret: z.string().min(1).optional() }),
    )
    .default([]),
  transformations: z.array(transformationSchema).default([]),
  webhook_feature_available: z.boolean().default(true),
  /** Credentials the emulator accepts; the demo credentials when absent. */
  credentials: z
    .object({
      api_key: z.string().min(1).optional(),
      api_secret: z.string().min(1).optional(),
      webhook_token: z.string().min(1).optional(),
    })
    .optional(),
});

export type EmulatorDataInput = z.input<typeof emulatorDataSchema>;
export type EmulatorData = z.output<typeof emulatorDataSchema>;

export async function readEmulatorData(path: string): Promise<EmulatorData> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ConfigurationError(
      `emulator data file ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      {
        code: 'emulator_data_unreadable',
        key: '--data',
        hint: 'pass --data with the path of a JSON file (see connector-auth emulator --print-data)',
      },
    );
  }
  text = withoutByteOrderMark(text);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ConfigurationError(`emulator data file ${path} is not valid JSON`, {
      code: 'emulator_data_not_json',
      key: '--data',
    });
  }
  return parseEmulatorData(json, path);
}

export function parseEmulatorData(value: unknown, origin = 'emulator data'): EmulatorData {
  const result = emulatorDataSchema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const path = issue.path
    .map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))
    .join('')
    .replace(/^\./, '');
  throw new ConfigurationError(`${origin}: ${path || 'the document'} ${issue.message.toLowerCase()}`, {
    code: 'emulator_data_invalid',
    key: '--data',
    hint: 'fix that record; the format is the one `connector-auth emulator --print-data` writes',
  });
}

/** Loads a data set into an empty store; references (a connector's group) are checked. */
export function seedStore(store: EmulatorStore, data: EmulatorData): void {
  for (const group of data.groups) {
    if (store.getGroup(group.id)) throw invalid(`group '${group.id}' appears twice`);
    store.addGroup(utcGroup(group as Group));
  }
  for (const connector of data.connectors) {
    if (!store.getGroup(connector.group_id))
      throw invalid(`connector '${connector.id}' names group '${connector.group_id}', which is not in groups`);
    if (store.getConnector(connector.id)) throw invalid(`connector '${connector.id}' appears twice`);
    store.addConnector(utcConnector(structuredClone(connector) as Connector));
  }
  for (const webhook of data.webhooks) {
    if (webhook.id !== undefined && store.getWebhook(webhook.id)) throw invalid(`webhook ${webhook.id} appears twice`);
    store.addWebhook(structuredClone(webhook));
  }
  for (const t of data.transformations) {
    const record: Transformation =
      typeof t === 'string'
        ? { id: t, version: 1, latest_version: 2 }
        : {
            id: t.id,
            ...(t.name ? { name: t.name } : {}),
            version: t.version ?? 1,
            latest_version: t.latest_version ?? (t.version ?? 1) + 1,
          };
    store.addTransformation(record);
  }
  store.webhookFeatureAvailable = data.webhook_feature_available;
}

function invalid(message: string): ConfigurationError {
  return new ConfigurationError(`emulator data: ${message}`, { code: 'emulator_data_invalid', key: '--data' });
}
