import type { Connector, Group } from '../../clients/index.js';
import type { EmulatorDataInput } from './emulator-data.js';

/**
 * The data set the emulator serves when no --data file is given: six groups (one empty), 250
 * connectors spread so that the largest group needs two pages at the default limit of 100 and a
 * third at 50, every state of section 3 present, a few connect cards (their tokens are secrets), three
 * webhooks and three transformation packages. Deterministic: the same ids on every run, so a README
 * can name them.
 */

export const DEFAULT_GROUP_SIZES: Readonly<Record<string, number>> = {
  grp_analytics: 160,
  grp_marketing: 55,
  grp_finance: 22,
  grp_operations: 9,
  grp_sandbox: 4,
  grp_archive: 0,
};

const GROUP_NAMES: Record<string, string> = {
  grp_analytics: 'Analytics',
  grp_marketing: 'Marketing',
  grp_finance: 'Finance',
  grp_operations: 'Operations',
  grp_sandbox: 'Sandbox',
  grp_archive: 'Archive',
};

const SERVICES = [
  'postgres',
  'salesforce',
  'google_sheets',
  'hubspot',
  'stripe',
  's3',
  'mysql',
  'zendesk',
  'shopify',
  'github',
];
const ADJECTIVES = [
  'amber',
  'brisk',
  'candid',
  'dapper',
  'eager',
  'fabled',
  'gentle',
  'hollow',
  'ivory',
  'jovial',
  'keen',
  'lucid',
  'mellow',
  'nimble',
  'opal',
  'placid',
  'quiet',
  'rustic',
  'sable',
  'tidal',
];
const NOUNS = [
  'anchor',
  'beacon',
  'canyon',
  'delta',
  'ember',
  'falcon',
  'glacier',
  'harbor',
  'island',
  'juniper',
  'kestrel',
  'lagoon',
  'meadow',
  'nebula',
  'orchard',
];
const FREQUENCIES = [5, 15, 30, 60, 120, 180, 360, 480, 720, 1440];

/** mulberry32: a small seeded generator, so the data set is the same on every machine. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const iso = (ms: number) => new Date(ms).toISOString();

export function defaultEmulatorData(): EmulatorDataInput {
  const random = seeded(20240501);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const base = Date.UTC(2024, 0, 15, 9, 30, 0, 123);
  const groups: Group[] = Object.keys(DEFAULT_GROUP_SIZES).map((id, i) => ({
    id,
    name: GROUP_NAMES[id]!,
    created_at: iso(base + i * 86_400_000 + 417),
  }));
  const connectors: Connector[] = [];
  const usedIds = new Set<string>();
  let n = 0;
  for (const group of groups) {
    const perService = new Map<string, number>();
    for (let i = 0; i < DEFAULT_GROUP_SIZES[group.id]!; i++, n++) {
      let id: string;
      do
        id = `${pick(ADJECTIVES)}_${pick(NOUNS)}_${Math.floor(random() * 1000)
          .toString()
          .padStart(3, '0')}`;
      while (usedIds.has(id));
      usedIds.add(id);
      const service = pick(SERVICES);
      const k = (perService.get(service) ?? 0) + 1;
      perService.set(service, k);
      connectors.push(connectorRecord({ id, group, service, schema: `${service}_${k}`, n, random, base }));
      // A connector is created after its group (created_at is read as the connector's own: utc-timestamps.ts).
      const last = connectors.at(-1)!;
      if (last.created_at <= group.created_at) last.created_at = iso(Date.parse(group.created_at) + 1000 + i);
    }
  }
  return {
    groups,
    connectors,
    webhooks: defaultWebhooks(),
    transformations: defaultTransformations(),
    webhook_feature_available: true,
  };
}

/** New objects each time: the store may change what it is given. */
function defaultWebhooks(): EmulatorDataInput['webhooks'] {
  return [
    {
      id: 1,
      name: 'on-call alerts',
      description: 'raised and resolved sync alerts to the pager',
      events: ['sync.alert.raised', 'sync.alert.resolved'],
      endpoint: 'https://hooks.example.com/pager/connector-alerts',
    },
    {
      id: 2,
      name: 'audit everything',
      description: 'every event, for the audit log',
      endpoint: 'https://audit.example.com/ingest',
    },
    {
      id: 3,
      name: 'failed syncs to chat',
      events: ['sync.failed'],
      endpoint: 'https://chat.example.com/hooks/T01/B02',
    },
  ];
}

function defaultTransformations(): EmulatorDataInput['transformations'] {
  return [
    { id: 'tp_stripe_revenue', name: 'Stripe revenue package', version: 3, latest_version: 4 },
    { id: 'tp_hubspot_funnel', name: 'HubSpot funnel package', version: 2, latest_version: 2 },
    { id: 'tp_github_activity', name: 'GitHub activity package', version: 1, latest_version: 5 },
  ];
}

/** A connector's state in the data: every state of section 3 appears, mostly healthy. */
type ConnectorKind = 'healthy' | 'paused' | 'broken' | 'delayed' | 'incomplete' | 'rescheduled' | 'syncing';

/** The states other than healthy, by the connector's number modulo 25. */
const KIND_BY_REMAINDER: Partial<Record<number, ConnectorKind>> = {
  3: 'paused',
  7: 'broken',
  11: 'delayed',
  13: 'incomplete',
  17: 'rescheduled',
  21: 'syncing',
};

function connectorRecord(a: {
  id: string;
  group: Group;
  service: string;
  schema: string;
  n: number;
  random: () => number;
  base: number;
}): Connector {
  const { id, group, service, schema, n, random, base } = a;
  const created = base + n * 3_600_000 + Math.floor(random() * 999);
  const kind = KIND_BY_REMAINDER[n % 25] ?? 'healthy';
  const frequency = FREQUENCIES[n % FREQUENCIES.length]!;
  const synced = kind !== 'incomplete';
  const connector: Connector = {
    id,
    group_id: group.id,
    service,
    service_version: 1 + (n % 3),
    schema,
    paused: kind === 'paused',
    status: connectorStatus(kind, n, base),
    config: {
      region: n % 2 === 0 ? 'us-east-1' : 'eu-west-1',
      ...(service === 'postgres' || service === 'mysql'
        ? { host: `db${n}.internal.example.com`, port: service === 'postgres' ? 5432 : 3306, database: 'app' }
        : {}),
    },
    succeeded_at: synced ? iso(created + 7 * 86_400_000 + 123) : null,
    failed_at: kind === 'broken' || kind === 'delayed' ? iso(created + 8 * 86_400_000 + 456) : null,
    sync_frequency: frequency,
    pause_after_trial: n % 9 === 0,
    connected_by: `user_${(n % 7) + 1}`,
    setup_tests: synced ? passedSetupTests(n) : failedSetupTests(),
    source_sync_details: service === 'postgres' ? { last_lsn: 1000 + n } : {},
    created_at: iso(created),
    schedule_type: n % 12 === 6 ? 'manual' : 'auto',
    connect_card_config: {
      redirect_uri: `https://app.example.com/setup-done?connector=${id}`,
      hide_setup_guide: n % 2 === 0,
    },
  };
  if (frequency === 1440 && n % 3 !== 0) connector.daily_sync_time = `${String(n % 24).padStart(2, '0')}:00`;
  if (n % 16 === 2)
    connector.connect_card = {
      token: `cct_${Math.floor(random() * 2 ** 48).toString(36)}${Math.floor(random() * 2 ** 48).toString(36)}`,
      uri: `https://connect.example.com/card/${id}`,
    };
  return connector;
}

/** A connector's status as its kind shows it. */
function connectorStatus(kind: ConnectorKind, n: number, base: number): Connector['status'] {
  return {
    setup_state: kind === 'incomplete' ? 'incomplete' : kind === 'broken' ? 'broken' : 'connected',
    schema_status: 'ready',
    sync_state:
      kind === 'paused'
        ? 'paused'
        : kind === 'rescheduled'
          ? 'rescheduled'
          : kind === 'syncing'
            ? 'syncing'
            : 'scheduled',
    update_state: kind === 'delayed' || kind === 'broken' ? 'delayed' : 'on_schedule',
    is_historical_sync: n % 40 === 5,
    tasks:
      kind === 'broken'
        ? [{ code: 'reconnect', message: 'Reconnect the connector: the source rejected its credentials' }]
        : [],
    warnings:
      kind === 'delayed' ? [{ code: 'slow_source', message: 'The source answered slowly during the last sync' }] : [],
    rescheduled_for: kind === 'rescheduled' ? iso(base + 400 * 86_400_000) : null,
  };
}

/** The setup tests of a connector set up: one in ten has a permission missing. */
function passedSetupTests(n: number): Connector['setup_tests'] {
  return [
    { title: 'Connecting to the source', status: 'PASSED', message: '', details: '' },
    n % 10 === 4
      ? {
          title: 'Validating permissions',
          status: 'WARNING',
          message: 'Read access to 2 tables is missing',
          details: 'SELECT denied on public.invoices, public.refunds',
        }
      : { title: 'Validating permissions', status: 'PASSED', message: '', details: '' },
  ];
}

/** The setup test of a connector whose setup was never completed. */
function failedSetupTests(): Connector['setup_tests'] {
  return [
    {
      title: 'Connecting to the source',
      status: 'FAILED',
      message: 'Setup has not been completed',
      details: 'no credentials were entered',
    },
  ];
}
