import {
  checkWebhookId,
  createWebhookClient,
  NotFoundError,
  resolveWebhookSettings,
  type ListedWebhook,
  type Webhook,
} from '../../../clients/index.js';
import { SourceUnreachableError } from '../../../errors/index.js';
import type { CliIO, Command } from '../../cli-io.js';
import { formatTable } from '../../format-table.js';
import { interfaceConfiguration, parseInterfaceArgs } from '../../interface-args.js';

const HELP = `Usage:
  connector-auth webhooks list
  connector-auth webhooks get <webhook_id>
  connector-auth webhooks delete <webhook_id>

The sync webhook interface. The service documents Bearer; the specification also declares Basic.

Credentials, first found wins:
  --base-url URL             the service root (else webhook_base_url, else base_url)
  --auth bearer|basic        (else webhook_auth_method; default bearer)
  --configuration FILE       bearer: webhook_token (or token); basic: username, password
  CONNECTOR_AUTH_WEBHOOK_BASE_URL, CONNECTOR_AUTH_WEBHOOK_AUTH_METHOD, CONNECTOR_AUTH_WEBHOOK_TOKEN,
  CONNECTOR_AUTH_API_KEY and CONNECTOR_AUTH_API_SECRET (basic)

Exit codes: 0 ok · 1 not found · 2 bad arguments or configuration · 3 credentials rejected or
feature not available (403) · 4 the service reported an error or failed`;

const WEBHOOKS = {
  name: 'webhooks',
  actions: { list: { identifier: false }, get: { identifier: true }, delete: { identifier: true } },
  identifier: 'webhook id',
  options: { auth: { type: 'string' } },
} as const;

const command: Command = {
  async run(args: string[], io: CliIO): Promise<number> {
    const parsed = parseInterfaceArgs(WEBHOOKS, args);
    if (parsed.help !== undefined) {
      io.out(HELP);
      return parsed.help;
    }
    const { action, values } = parsed;
    const id = action === 'list' ? undefined : checkWebhookId(parsed.id);

    const file = await interfaceConfiguration(values, io);
    const settings = resolveWebhookSettings({
      file,
      env: process.env,
      ...(values['base-url'] ? { baseUrl: values['base-url'] } : {}),
      ...(values.auth ? { authMethod: values.auth } : {}),
    });
    const client = await createWebhookClient(
      { ...settings.connection, log: io.log },
      { rejectedKey: settings.rejectedKey },
    );
    try {
      if (action === 'list') {
        const result = await client.list();
        if (result.status === 'error') throw serviceError('list', result.message);
        if (io.json) io.out(JSON.stringify({ ok: true, webhooks: result.webhooks }));
        else
          io.out(
            result.webhooks.length === 0
              ? '(none)'
              : formatTable(['ID', 'NAME', 'EVENTS', 'ENDPOINT'], result.webhooks.map(row)),
          );
        return 0;
      }
      if (action === 'get') {
        const result = await client.get(id!);
        if (result.status === 'not_found') throw notFound(id!);
        if (result.status === 'error') throw serviceError(`get ${id}`, result.message);
        if (io.json) io.out(JSON.stringify({ ok: true, webhook: result.webhook }));
        else io.out(formatTable(['FIELD', 'VALUE'], describe(result.webhook)));
        return 0;
      }
      const result = await client.delete(id!);
      if (result.status === 'not_found') throw notFound(id!);
      if (result.status === 'error') throw serviceError(`delete ${id}`, result.message);
      io.out(io.json ? JSON.stringify({ ok: true, status: 'deleted', webhook_id: id }) : `deleted webhook ${id}`);
      return 0;
    } finally {
      await client.close();
    }
  },
};
export default command;

function notFound(id: number): NotFoundError {
  return new NotFoundError(`webhook ${id} not found`, {
    code: 'not_found',
    resource: 'webhook',
    id: String(id),
    hint: 'list the ids with: connector-auth webhooks list',
  });
}

/** A 200 whose body says `error`: the service itself failed to do it. */
function serviceError(what: string, message: string | undefined): SourceUnreachableError {
  return new SourceUnreachableError(
    `the webhook service reported an error for ${what}${message ? `: ${message}` : ''}`,
    {
      code: 'service_error',
      hint: 'try again later',
    },
  );
}

function row(w: ListedWebhook): string[] {
  return [
    w.id === undefined ? '-' : String(w.id),
    w.name,
    w.events && w.events.length > 0 ? w.events.join(',') : '(all)',
    w.endpoint,
  ];
}

function describe(w: Webhook): string[][] {
  return [
    ['id', String(w.id)],
    ['name', w.name],
    ['description', w.description ?? ''],
    ['events', w.events && w.events.length > 0 ? w.events.join(', ') : '(all events)'],
    ['endpoint', w.endpoint],
  ];
}
