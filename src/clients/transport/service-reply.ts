import type { z } from 'zod';
import { SourceUnreachableError } from '../../errors/index.js';
import type { BodyBytes } from './body-buffers.js';
import type { TransportResponse } from './http-transport.js';
import { parsePageBody } from './page-body-parse.js';

/**
 * Reading what a service answered: JSON or a classified error, validated records or an error that
 * names where the record broke (a path such as `data.items[3].daily_sync_time`) but never the value,
 * which may be a token.
 */

export async function readJsonBody(response: TransportResponse, target: string): Promise<unknown> {
  return parseJsonBody(await response.text(), response.status, target);
}

/** A body already read, as text or as bytes in a buffer of the client's. */
export type JsonBody = string | BodyBytes;

/** A body already read, parsed as JSON; undefined when empty. */
export function parseJsonBody(body: JsonBody, status: number, target: string): unknown {
  if (body.length === 0) return undefined;
  try {
    return typeof body === 'string' ? JSON.parse(body) : parsePageBody(body.bytes, body.length);
  } catch {
    throw new SourceUnreachableError(`${target} answered HTTP ${status} with a body that is not JSON`, {
      code: 'invalid_response',
      hint: 'check that the base URL points at the service itself, not a proxy or login page',
    });
  }
}

/** Parses one value with a schema; `where` is the path prefix used in the message. */
export function validate<S extends z.ZodType>(schema: S, value: unknown, target: string, where: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const path = [where, ...issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))]
    .join('')
    .replace(/^\./, '');
  throw new SourceUnreachableError(
    `${target} answered a record that does not match the interface: ${path} ${describeIssue(issue)}`,
    {
      code: 'invalid_response',
      hint: 'the service and this client disagree on the record shape; report it with the path above',
    },
  );
}

function describeIssue(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return `must be ${issue.expected}`;
    case 'invalid_value':
      return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'invalid_format':
      return `must be ${issue.format === 'regex' ? 'in the documented format' : `a valid ${issue.format}`}`;
    default:
      return issue.message.toLowerCase();
  }
}

export function bodyField(body: unknown, field: string): unknown {
  return body !== null && typeof body === 'object' ? (body as Record<string, unknown>)[field] : undefined;
}
