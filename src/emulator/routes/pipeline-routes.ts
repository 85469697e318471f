import type { IncomingMessage, ServerResponse } from 'node:http';
import { basicMatches } from './auth-check.js';
import type { EmulatorContext } from './emulator-context.js';
import { acceptsJson, sendJson } from './http-reply.js';
import { jsonOf, readPageQuery, takePage, type StoredRecord } from '../store/index.js';

/**
 * The pipeline management interface (specification 4.1–4.3, 4.7) under `/v1`. Every request needs
 * HTTP Basic with the API key and secret (5.1). Error bodies are `{code, message}` as the real service
 * writes them: 400 InvalidInput, 401 AuthFailed, 404 NotFound_*, 405 MethodNotAllowed, 406 NotAcceptable.
 */

const error = (
  res: ServerResponse,
  status: number,
  code: string,
  message: string,
  headers: Record<string, string> = {},
) => sendJson(res, status, { code, message }, headers);

export function handlePipeline(req: IncomingMessage, res: ServerResponse, url: URL, ctx: EmulatorContext): void {
  if (!basicMatches(req.headers.authorization, ctx.credentials.apiKey, ctx.credentials.apiSecret))
    return error(res, 401, 'AuthFailed', 'Missing or invalid API key and secret.', {
      'www-authenticate': 'Basic realm="pipeline"',
    });
  if (!acceptsJson(req.headers.accept))
    return error(res, 406, 'NotAcceptable', 'This interface answers application/json only.');

  const segments = pathSegments(url.pathname);
  if (segments === undefined) return error(res, 400, 'InvalidInput', 'The path is not valid percent-encoding.');
  const method = req.method ?? 'GET';
  const [, first, id, leaf, extra] = segments;

  if (first === 'groups' && id === undefined) {
    if (method !== 'GET') return notAllowed(res, 'GET');
    return listGroups(res, url, ctx);
  }
  if (
    first === 'groups' &&
    id !== undefined &&
    (leaf === 'connectors' || leaf === 'connections') &&
    extra === undefined
  ) {
    if (method !== 'GET') return notAllowed(res, 'GET');
    return listConnectors(res, url, ctx, id);
  }
  if (first === 'transformations' && id !== undefined && leaf === 'upgrade' && extra === undefined) {
    if (method !== 'POST') return notAllowed(res, 'POST');
    if (!ctx.store.upgradeTransformation(id))
      return error(res, 404, 'NotFound_Transformation', `Transformation package with id '${id}' does not exist.`);
    return sendJson(res, 200, { code: 'Success', message: 'Transformation package has been upgraded' });
  }
  return error(res, 404, 'NotFound', `No endpoint ${method} ${url.pathname}.`);
}

function listGroups(res: ServerResponse, url: URL, ctx: EmulatorContext): void {
  const query = readPageQuery(url.searchParams, 'groups');
  if (!query.ok) return error(res, 400, 'InvalidInput', query.message);
  const page = takePage(ctx.store.groupIndex, 'groups', query.after, query.limit, ctx.settings.pagingStyle);
  sendPage(res, ctx, page.values, page.nextCursor);
}

function listConnectors(res: ServerResponse, url: URL, ctx: EmulatorContext, groupId: string): void {
  // Validate the request before looking anything up: a bad limit is a 400 whatever the group.
  const scope = `connectors:${groupId}`;
  const query = readPageQuery(url.searchParams, scope);
  if (!query.ok) return error(res, 400, 'InvalidInput', query.message);
  const schema = url.searchParams.get('schema');
  const index = ctx.store.connectorIndex(groupId, schema === null || schema === '' ? undefined : schema);
  if (!index) return error(res, 404, 'NotFound_Group', `Group with id '${groupId}' does not exist.`);
  const page = takePage(index, scope, query.after, query.limit, ctx.settings.pagingStyle);
  sendPage(res, ctx, page.values, page.nextCursor);
}

const PAGE_HEAD = Buffer.from('{"code":"Success","message":"Operation performed.","data":{"items":[');
const COMMA = Buffer.from(',');

/** The envelope of 2.5, assembled from each record's stored JSON bytes in one copy. */
function sendPage<T>(
  res: ServerResponse,
  ctx: EmulatorContext,
  records: StoredRecord<T>[],
  nextCursor: string | undefined,
): void {
  const parts: Buffer[] = [PAGE_HEAD];
  for (let i = 0; i < records.length; i++) {
    if (i > 0) parts.push(COMMA);
    parts.push(jsonOf(records[i]!));
  }
  parts.push(Buffer.from(`]${nextCursor === undefined ? '' : `,"next_cursor":${JSON.stringify(nextCursor)}`}}}`));
  ctx.pageBuffers.send(res, parts);
}

function notAllowed(res: ServerResponse, allow: string): void {
  error(res, 405, 'MethodNotAllowed', `Use ${allow} on this endpoint.`, { allow });
}

export function pathSegments(pathname: string): string[] | undefined {
  try {
    return pathname.split('/').filter(Boolean).map(decodeURIComponent);
  } catch {
    return undefined;
  }
}
