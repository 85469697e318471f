import type { IncomingMessage, ServerResponse } from 'node:http';

/** JSON in and out for the emulator's handlers. */

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  sendJsonText(res, status, JSON.stringify(body), headers);
}

export function sendJsonText(
  res: ServerResponse,
  status: number,
  text: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

const MAX_BODY = 1024 * 1024;

/** A request body parsed as JSON; `{}` when empty; undefined when not JSON or too large. */
export async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) return undefined;
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Whether an Accept header admits JSON (absent admits everything). Media ranges with `q=0` are
 * refusals (RFC 9110 §12.5.1): `application/json;q=0` does not admit JSON, and the most specific
 * range that matches decides (any type at q=1 with `application/json;q=0` refuses it too).
 */
export function acceptsJson(accept: string | undefined): boolean {
  if (!accept) return true;
  let best: { specificity: number; q: number } | undefined;
  for (const part of accept.split(',')) {
    const [range = '', ...params] = part.split(';').map((p) => p.trim().toLowerCase());
    const specificity =
      range === 'application/json' || (range.startsWith('application/') && range.endsWith('+json'))
        ? 3
        : range === 'application/*'
          ? 2
          : range === '*/*'
            ? 1
            : 0;
    if (specificity === 0) continue;
    const qParam = params.find((p) => /^q\s*=/.test(p));
    const q = qParam === undefined ? 1 : Number(qParam.split('=')[1]);
    if (!best || specificity > best.specificity) best = { specificity, q: Number.isFinite(q) ? q : 1 };
  }
  return best !== undefined && best.q > 0;
}
