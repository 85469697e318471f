import { createPipelineClient, parseLimit, resolvePipelineSettings, type Connector } from '../../../clients/index.js';
import type { CliIO, Command } from '../../cli-io.js';
import { formatTable } from '../../format-table.js';
import { interfaceConfiguration, parseInterfaceArgs } from '../../interface-args.js';

const HELP = `Usage:
  connector-auth pipeline groups [--limit N] [--cursor C]
  connector-auth pipeline connectors <group_id> [--schema S] [--limit N] [--cursor C] [--connections]
  connector-auth pipeline upgrade <transformation_id>

The pipeline management interface. Lists follow next_cursor through every page; --limit sets the
page size (1..1000, default 100); --cursor C fetches the one page at C and prints its next cursor.

Credentials, first found wins:
  --base-url URL                      the service root (else base_url)
  --configuration FILE                keys base_url, username (API key), password (API secret)
  CONNECTOR_AUTH_BASE_URL, CONNECTOR_AUTH_API_KEY, CONNECTOR_AUTH_API_SECRET

Options:
  --connections   use the path segment 'connections' (the real service's newer name) instead of 'connectors'
  --json          one JSON document on stdout
Exit codes: 0 ok · 1 not found · 2 bad arguments or configuration · 3 credentials rejected · 4 service failed`;

const PIPELINE = {
  name: 'pipeline',
  actions: { groups: { identifier: false }, connectors: { identifier: true }, upgrade: { identifier: true } },
  identifier: 'identifier',
  options: {
    limit: { type: 'string' },
    cursor: { type: 'string' },
    schema: { type: 'string' },
    connections: { type: 'boolean' },
  },
} as const;

const command: Command = {
  async run(args: string[], io: CliIO): Promise<number> {
    const parsed = parseInterfaceArgs(PIPELINE, args);
    if (parsed.help !== undefined) {
      io.out(HELP);
      return parsed.help;
    }
    const { action, id, values } = parsed;
    const limit = parseLimit(values.limit);
    const client = await openClient(values, io);
    try {
      if (action === 'upgrade') return await upgrade(io, client, id!);
      const page = { ...(limit !== undefined ? { limit } : {}) };
      if (action === 'groups') return await listGroups(io, client, page, values.cursor);
      const filter = { ...page, ...(values.schema ? { schema: values.schema } : {}) };
      return await listConnectors(io, client, id!, filter, values.cursor);
    } finally {
      await client.close();
    }
  },
};
export default command;

type PipelineClient = Awaited<ReturnType<typeof createPipelineClient>>;
type Page = { limit?: number };

/** The client, its credentials from --base-url, the --configuration file, then the environment. */
async function openClient(
  values: { configuration?: string | undefined; 'base-url'?: string | undefined; connections?: boolean | undefined },
  io: CliIO,
): Promise<PipelineClient> {
  const file = await interfaceConfiguration(values, io);
  const settings = resolvePipelineSettings({
    file,
    env: process.env,
    ...(values['base-url'] ? { baseUrl: values['base-url'] } : {}),
  });
  return createPipelineClient(
    { ...settings.connection, log: io.log },
    { rejectedKey: settings.rejectedKey, ...(values.connections ? { collection: 'connections' } : {}) },
  );
}

async function upgrade(io: CliIO, client: PipelineClient, id: string): Promise<number> {
  const result = await client.upgradeTransformation(id);
  io.out(
    io.json ? JSON.stringify({ ok: true, transformation_id: id, ...result }) : `${result.code}: ${result.message}`,
  );
  return 0;
}

async function listGroups(io: CliIO, client: PipelineClient, page: Page, cursor: string | undefined): Promise<number> {
  const { items, nextCursor } = await collect(
    io,
    'groups',
    cursor,
    (at) => client.listGroups({ ...page, cursor: at }),
    () => client.groups(page),
  );
  print(io, items, nextCursor, ['ID', 'NAME', 'CREATED_AT'], (g) => [g.id, g.name, g.created_at]);
  return 0;
}

async function listConnectors(
  io: CliIO,
  client: PipelineClient,
  groupId: string,
  filter: Page & { schema?: string },
  cursor: string | undefined,
): Promise<number> {
  const { items, nextCursor } = await collect(
    io,
    'connectors',
    cursor,
    (at) => client.listConnectors(groupId, { ...filter, cursor: at }),
    () => client.connectors(groupId, filter),
  );
  print(
    io,
    items.map(hideConnectCardToken),
    nextCursor,
    ['ID', 'SCHEMA', 'SERVICE', 'SETUP', 'SYNC', 'UPDATE', 'PAUSED', 'FREQ_MIN', 'SUCCEEDED_AT'],
    (c) => [
      c.id,
      c.schema,
      c.service,
      c.status.setup_state,
      c.status.sync_state,
      c.status.update_state,
      c.paused ? 'yes' : 'no',
      c.sync_frequency,
      c.succeeded_at ?? '-',
    ],
  );
  return 0;
}

/** One page at --cursor, or every page, with a progress line while they come (a large group is many pages). */
async function collect<T>(
  io: CliIO,
  noun: string,
  cursor: string | undefined,
  onePage: (cursor: string) => Promise<{ items: T[]; nextCursor: string | undefined }>,
  all: () => AsyncIterable<T>,
): Promise<{ items: T[]; nextCursor: string | undefined }> {
  if (cursor !== undefined) return onePage(cursor);
  const items: T[] = [];
  let shownAt = performance.now();
  try {
    for await (const item of all()) {
      // Checked once per 100 records: the clock is not read per record, and a redraw is at most every 100 ms.
      if (items.push(item) % 100 === 0 && performance.now() - shownAt >= PROGRESS_EVERY_MS) {
        shownAt = performance.now();
        io.progress(`  listing… ${items.length.toLocaleString('en-US')} ${noun}`);
      }
    }
  } finally {
    io.progress(undefined);
  }
  return { items, nextCursor: undefined };
}

const PROGRESS_EVERY_MS = 100;

function print<T>(
  io: CliIO,
  items: T[],
  nextCursor: string | undefined,
  header: string[],
  row: (item: T) => Array<string | number>,
): void {
  if (io.json) {
    io.out(JSON.stringify({ ok: true, items, ...(nextCursor ? { next_cursor: nextCursor } : {}) }));
    return;
  }
  io.out(items.length === 0 ? '(none)' : formatTable(header, items.map(row)));
  if (nextCursor) io.err(`more: --cursor ${nextCursor}`);
}

/** The connect-card token lets anyone set the connector up: never printed, whatever the output gate does. */
function hideConnectCardToken(connector: Connector): Connector {
  if (!connector.connect_card?.token) return connector;
  return { ...connector, connect_card: { ...connector.connect_card, token: '<CONNECT_TOKEN>' } };
}
