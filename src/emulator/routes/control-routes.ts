import type { IncomingMessage, ServerResponse } from 'node:http';
import { connectorSchema, groupSchema, isHttpsUrl, type Connector } from '../../clients/index.js';
import type { EmulatorContext } from './emulator-context.js';
import { readJson, sendJson } from './http-reply.js';
import { utcConnector, utcGroup } from '../data/index.js';
import { pathSegments } from './pipeline-routes.js';
import {
  nextScheduledSync,
  SimulationRefusal,
  SYNC_OUTCOMES,
  type EmulatorEvent,
  type SyncOutcome,
  type SyncTrigger,
} from '../syncs/index.js';

/**
 * Emulator-only routes under `/_emulator/` — not part of either interface, no credentials needed (the
 * emulator listens on loopback). They drive what the specification's endpoints cannot: simulated sync
 * runs and their events, schedule changes, records added or removed while a client pages, injected
 * failures, and the webhook feature switched off. Listed in docs/interfaces/emulator.md.
 */

const error = (res: ServerResponse, status: number, code: string, message: string) =>
  sendJson(res, status, { code, message });

export async function handleControl(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  ctx: EmulatorContext,
): Promise<void> {
  const segments = (pathSegments(url.pathname) ?? []).slice(1);
  const method = req.method ?? 'GET';
  const body = method === 'GET' || method === 'DELETE' ? {} : await readJson(req);
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body))
    return error(res, 400, 'InvalidInput', 'The body must be a JSON object.');
  const b = body as Record<string, unknown>;
  try {
    const route = `${method} ${segments.map((s, i) => (i === 1 && segments[0] === 'connectors' ? ':id' : s)).join('/')}`;
    switch (route) {
      case 'GET ':
        return sendJson(res, 200, summary(ctx));
      case 'PUT settings':
        return changeSettings(res, b, ctx);
      case 'POST faults':
        return addFault(res, b, ctx);
      case 'DELETE faults':
        ctx.faults.clear();
        return sendJson(res, 200, { code: 'Success' });
      case 'POST groups':
        return addGroup(res, b, ctx);
      case 'POST connectors':
        return addConnector(res, b, ctx);
      case 'GET connectors/:id':
        return withConnector(res, ctx, segments[1]!, (c) => sendJson(res, 200, { code: 'Success', data: c }));
      case 'DELETE connectors/:id':
        if (!ctx.store.removeConnector(segments[1]!))
          return error(res, 404, 'NotFound_Connector', `Connector with id '${segments[1]}' does not exist.`);
        return sendJson(res, 200, { code: 'Success', message: 'Connector has been deleted' });
      case 'PATCH connectors/:id':
        return sendJson(res, 200, { code: 'Success', data: ctx.simulator.changeSchedule(segments[1]!, b) });
      case 'POST connectors/:id/setup':
        return sendJson(res, 200, { code: 'Success', data: ctx.simulator.setup(segments[1]!, b.passed !== false) });
      case 'POST connectors/:id/sync':
        return await runSync(res, segments[1]!, b, ctx, 'both');
      case 'POST connectors/:id/sync/start':
        return await runSync(res, segments[1]!, b, ctx, 'start');
      case 'POST connectors/:id/sync/finish':
        return await runSync(res, segments[1]!, b, ctx, 'finish');
      case 'GET connectors/:id/next-sync':
        return nextSync(res, url, ctx, segments[1]!);
      case 'POST webhooks':
        return addWebhook(res, b, ctx);
      case 'GET deliveries':
        return sendJson(res, 200, { code: 'Success', data: ctx.delivery.log });
      default:
        return error(res, 404, 'NotFound', `No emulator control route ${method} ${url.pathname}.`);
    }
  } catch (e) {
    if (e instanceof SimulationRefusal) return error(res, e.status, e.code, e.message);
    throw e;
  }
}

function summary(ctx: EmulatorContext) {
  return {
    code: 'Success',
    data: {
      groups: ctx.store.groupCount,
      connectors: ctx.store.connectorCount,
      webhooks: ctx.store.listWebhooks().length,
      webhook_feature_available: ctx.store.webhookFeatureAvailable,
      pending_faults: ctx.faults.pending,
      deliveries: ctx.delivery.log.length,
      settings: ctx.settings,
    },
  };
}

function changeSettings(res: ServerResponse, b: Record<string, unknown>, ctx: EmulatorContext): void {
  const s = ctx.settings;
  if (b.paging_style !== undefined && b.paging_style !== 'look-ahead' && b.paging_style !== 'full-page')
    return error(res, 400, 'InvalidInput', "paging_style must be 'look-ahead' or 'full-page'");
  if (
    b.webhook_not_found_as !== undefined &&
    b.webhook_not_found_as !== 'http_404' &&
    b.webhook_not_found_as !== 'status_200'
  )
    return error(res, 400, 'InvalidInput', "webhook_not_found_as must be 'http_404' or 'status_200'");
  const schemes = b.webhook_auth_schemes;
  if (
    schemes !== undefined &&
    (!Array.isArray(schemes) || schemes.length === 0 || !schemes.every((x) => x === 'bearer' || x === 'basic'))
  )
    return error(res, 400, 'InvalidInput', "webhook_auth_schemes must be a non-empty list of 'bearer' and 'basic'");
  if (b.webhook_feature_available !== undefined && typeof b.webhook_feature_available !== 'boolean')
    return error(res, 400, 'InvalidInput', 'webhook_feature_available must be true or false');
  if (b.paging_style !== undefined) s.pagingStyle = b.paging_style as typeof s.pagingStyle;
  if (b.webhook_not_found_as !== undefined) s.webhookNotFoundAs = b.webhook_not_found_as as typeof s.webhookNotFoundAs;
  if (schemes !== undefined) s.webhookAuthSchemes = [...new Set(schemes as ('bearer' | 'basic')[])];
  if (typeof b.webhook_feature_available === 'boolean') ctx.store.webhookFeatureAvailable = b.webhook_feature_available;
  sendJson(res, 200, summary(ctx));
}

function addFault(res: ServerResponse, b: Record<string, unknown>, ctx: EmulatorContext): void {
  if (typeof b.path !== 'string' || !b.path.startsWith('/'))
    return error(res, 400, 'InvalidInput', 'path must be a path prefix such as /v1/groups');
  if (!Number.isInteger(b.status) || (b.status as number) < 100 || (b.status as number) > 599)
    return error(res, 400, 'InvalidInput', 'status must be an HTTP status code');
  const times = b.times === undefined ? 1 : b.times;
  if (!Number.isInteger(times) || (times as number) < 1)
    return error(res, 400, 'InvalidInput', 'times must be a whole number from 1');
  ctx.faults.add({
    path: b.path,
    ...(typeof b.method === 'string' ? { method: b.method } : {}),
    status: b.status as number,
    ...(b.body !== undefined ? { body: b.body } : {}),
    ...(b.retry_after !== undefined ? { retryAfter: String(b.retry_after) } : {}),
    times: times as number,
  });
  sendJson(res, 201, { code: 'Success', data: { pending_faults: ctx.faults.pending } });
}

function addGroup(res: ServerResponse, b: Record<string, unknown>, ctx: EmulatorContext): void {
  const parsed = groupSchema.safeParse({ created_at: ctx.now().toISOString(), ...b });
  if (!parsed.success) return error(res, 400, 'InvalidInput', `Invalid group: ${firstIssue(parsed.error.issues)}`);
  if (ctx.store.getGroup(parsed.data.id))
    return error(res, 409, 'Conflict', `Group with id '${parsed.data.id}' exists already.`);
  const group = utcGroup(parsed.data);
  ctx.store.addGroup(group);
  sendJson(res, 201, { code: 'Success', data: group });
}

/** A connector from a partial record: the fields a real create needs, the rest defaulted. */
function addConnector(res: ServerResponse, b: Record<string, unknown>, ctx: EmulatorContext): void {
  const now = ctx.now().toISOString();
  const status = typeof b.status === 'object' && b.status !== null ? (b.status as Record<string, unknown>) : {};
  const candidate = {
    paused: false,
    config: {},
    sync_frequency: 360,
    schedule_type: 'auto',
    created_at: now,
    succeeded_at: null,
    failed_at: null,
    setup_tests: [],
    ...b,
    status: {
      setup_state: 'connected',
      sync_state: 'scheduled',
      update_state: 'on_schedule',
      is_historical_sync: false,
      tasks: [],
      warnings: [],
      ...status,
    },
  };
  const parsed = connectorSchema.safeParse(candidate);
  if (!parsed.success) return error(res, 400, 'InvalidInput', `Invalid connector: ${firstIssue(parsed.error.issues)}`);
  const connector = utcConnector(parsed.data as Connector);
  if (!ctx.store.getGroup(connector.group_id))
    return error(res, 404, 'NotFound_Group', `Group with id '${connector.group_id}' does not exist.`);
  if (ctx.store.getConnector(connector.id))
    return error(res, 409, 'Conflict', `Connector with id '${connector.id}' exists already.`);
  ctx.store.addConnector(connector);
  sendJson(res, 201, { code: 'Success', data: connector });
}

function addWebhook(res: ServerResponse, b: Record<string, unknown>, ctx: EmulatorContext): void {
  const bad = (message: string) => sendJson(res, 400, { status: 400, message });
  if (typeof b.name !== 'string' || b.name === '') return bad('name is required');
  if (typeof b.endpoint !== 'string' || !isHttpsUrl(b.endpoint)) return bad('endpoint must be an HTTPS URL');
  if (
    b.events !== undefined &&
    b.events !== null &&
    (!Array.isArray(b.events) || !b.events.every((e) => typeof e === 'string'))
  )
    return bad('events must be a list of event names');
  if (b.description !== undefined && b.description !== null && typeof b.description !== 'string')
    return bad('description must be text');
  const webhook = ctx.store.addWebhook({
    name: b.name,
    endpoint: b.endpoint,
    ...(typeof b.description === 'string' ? { description: b.description } : {}),
    ...(Array.isArray(b.events) ? { events: b.events as string[] } : {}),
  });
  sendJson(res, 201, { status: 'success', data: webhook });
}

async function runSync(
  res: ServerResponse,
  id: string,
  b: Record<string, unknown>,
  ctx: EmulatorContext,
  phase: 'start' | 'finish' | 'both',
) {
  const trigger = (b.trigger ?? 'manual') as SyncTrigger;
  if (trigger !== 'manual' && trigger !== 'scheduled')
    return error(res, 400, 'InvalidInput', "trigger must be 'manual' or 'scheduled'");
  const outcome = (b.outcome ?? 'success') as SyncOutcome;
  if (!SYNC_OUTCOMES.includes(outcome))
    return error(res, 400, 'InvalidInput', `outcome must be one of ${SYNC_OUTCOMES.join(', ')}`);
  if (b.message !== undefined && typeof b.message !== 'string')
    return error(res, 400, 'InvalidInput', 'message must be text');
  const events: EmulatorEvent[] = [];
  let run;
  if (phase !== 'finish') {
    const started = ctx.simulator.start(id, trigger);
    run = started.run;
    events.push(...started.events);
  }
  if (phase !== 'start') {
    const finished = ctx.simulator.finish(id, outcome, b.message as string | undefined);
    run = finished.run;
    events.push(...finished.events);
  }
  const deliveries = await ctx.delivery.deliver(events, ctx.store.listWebhooks(), (id) => ctx.store.webhookSecret(id));
  sendJson(res, 200, { code: 'Success', data: { run, connector: ctx.store.getConnector(id), events, deliveries } });
}

function nextSync(res: ServerResponse, url: URL, ctx: EmulatorContext, id: string): void {
  const connector = ctx.store.getConnector(id);
  if (!connector) return error(res, 404, 'NotFound_Connector', `Connector with id '${id}' does not exist.`);
  const afterText = url.searchParams.get('after');
  const after = afterText ? new Date(afterText) : ctx.now();
  if (Number.isNaN(after.getTime())) return error(res, 400, 'InvalidInput', 'after must be an ISO 8601 timestamp');
  const next = nextScheduledSync(connector, after, ctx.settings.baselineStartTime);
  sendJson(res, 200, {
    code: 'Success',
    data: { next_sync_at: next.at?.toISOString() ?? null, reason: next.reason, historical: next.historical },
  });
}

function withConnector(res: ServerResponse, ctx: EmulatorContext, id: string, then: (c: Connector) => void): void {
  const connector = ctx.store.getConnector(id);
  if (!connector) return error(res, 404, 'NotFound_Connector', `Connector with id '${id}' does not exist.`);
  then(connector);
}

function firstIssue(issues: readonly { path: PropertyKey[]; message: string }[]): string {
  const issue = issues[0]!;
  return `${issue.path.map(String).join('.') || 'record'}: ${issue.message}`;
}
