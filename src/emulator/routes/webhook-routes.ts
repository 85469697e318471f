import type { IncomingMessage, ServerResponse } from 'node:http';
import { basicMatches, bearerMatches } from './auth-check.js';
import type { EmulatorContext } from './emulator-context.js';
import { sendJson } from './http-reply.js';
import { pathSegments } from './pipeline-routes.js';

/**
 * The sync webhook interface (specification 4.4–4.6) under `/api/v1/webhooks`, with the bodies of
 * section 4 and 7: 401 `{status: 401}`, 403 `{status: 403, message}` when the organization lacks the
 * feature, 404 `{status: 404}`. Authorization is Bearer and/or Basic as configured (5.2 is ambiguous).
 * A webhook id that is not an integer names no webhook: 404, as for an unknown one.
 */

export const FEATURE_NOT_AVAILABLE = "The feature you're trying to use is not available for your organization";

export function handleWebhooks(req: IncomingMessage, res: ServerResponse, url: URL, ctx: EmulatorContext): void {
  if (!authorized(req.headers.authorization, ctx)) {
    const challenges = ctx.settings.webhookAuthSchemes.map((s) =>
      s === 'bearer' ? 'Bearer realm="webhooks"' : 'Basic realm="webhooks"',
    );
    return sendJson(res, 401, { status: 401 }, { 'www-authenticate': challenges.join(', ') });
  }
  if (!ctx.store.webhookFeatureAvailable) return sendJson(res, 403, { status: 403, message: FEATURE_NOT_AVAILABLE });

  const segments = pathSegments(url.pathname) ?? [];
  const method = req.method ?? 'GET';
  if (segments.length === 3) {
    if (method !== 'GET') return sendJson(res, 405, { status: 405 }, { allow: 'GET' });
    return sendJson(res, 200, { status: 'success', data: ctx.store.listWebhooks() });
  }
  if (segments.length !== 4) return sendJson(res, 404, { status: 404 });
  if (method !== 'GET' && method !== 'DELETE') return sendJson(res, 405, { status: 405 }, { allow: 'GET, DELETE' });

  const text = segments[3]!;
  const id = /^\d{1,15}$/.test(text) ? Number(text) : undefined;
  const webhook = id === undefined ? undefined : ctx.store.getWebhook(id);
  if (!webhook) {
    if (id === undefined || ctx.settings.webhookNotFoundAs === 'http_404') return sendJson(res, 404, { status: 404 });
    return sendJson(res, 200, { status: 'not_found' });
  }
  if (method === 'GET') return sendJson(res, 200, { status: 'success', data: webhook });
  ctx.store.deleteWebhook(webhook.id);
  return sendJson(res, 200, { status: 'deleted' });
}

function authorized(header: string | undefined, ctx: EmulatorContext): boolean {
  const { credentials, settings } = ctx;
  // Both checks always run when both schemes are on, so the time taken does not tell which one matched.
  let ok = false;
  if (settings.webhookAuthSchemes.includes('bearer')) ok = bearerMatches(header, credentials.webhookToken) || ok;
  if (settings.webhookAuthSchemes.includes('basic'))
    ok = basicMatches(header, credentials.webhookUsername, credentials.webhookPassword) || ok;
  return ok;
}
