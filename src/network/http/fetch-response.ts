import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';

/**
 * Node's answer as a WHATWG `Response`, for the callers that want fetch's shape: a connector's
 * `source.fetch()` and a signed URL's download. Its body is a ReadableStream over the Node stream
 * (read as the reader pulls, so a large download is never held whole), decoded as fetch decodes it
 * (gzip, deflate, br), and its failures, also those after the headers (a reset, a pause longer than
 * timeout_seconds), arrive already classified, so they end a run with exit 4 naming the URL,
 * whoever reads the body.
 *
 * The global Response is Node's own (loaded at its first use, ~15 ms): only these callers pay for it.
 */
export async function fetchResponse(
  answer: IncomingMessage,
  request: { url: URL; method: string; redirected: boolean },
  classify: (error: unknown) => Error,
): Promise<Response> {
  const status = answer.statusCode ?? 0;
  const headers = new Headers();
  const raw = answer.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  const empty = request.method === 'HEAD' || NULL_BODY_STATUSES.has(status);
  if (empty) answer.resume();
  const body = empty ? null : webStream(await decoded(answer, headers.get('content-encoding')), classify);
  const response = new Response(body, { status, statusText: answer.statusMessage ?? '', headers });
  // A constructed Response has no URL of its own: the one the answer came from (after redirects) is kept.
  Object.defineProperties(response, { url: { value: request.url.href }, redirected: { value: request.redirected } });
  return response;
}

/** Statuses a Response may not give a body (the fetch standard's null body statuses). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/** The body with its content coding undone, as fetch does; zlib is loaded only for a coded body. */
async function decoded(answer: IncomingMessage, coding: string | null): Promise<Readable> {
  const name = coding?.trim().toLowerCase();
  if (!name || name === 'identity') return answer;
  const zlib = await import('node:zlib');
  const decoder =
    name === 'gzip' || name === 'x-gzip'
      ? zlib.createGunzip({ finishFlush: zlib.constants.Z_SYNC_FLUSH })
      : name === 'deflate'
        ? zlib.createInflate()
        : name === 'br'
          ? zlib.createBrotliDecompress()
          : undefined;
  if (!decoder) return answer; // a coding fetch does not know either: the bytes as they came
  answer.on('error', (error) => decoder.destroy(error));
  return answer.pipe(decoder);
}

function webStream(body: Readable, classify: (error: unknown) => Error): ReadableStream<Uint8Array> {
  /** Set once the stream has ended, failed or been cancelled: nothing reaches the controller after. */
  let settled = false;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        body.on('data', (chunk: Buffer) => {
          if (settled) return;
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length));
          if ((controller.desiredSize ?? 1) <= 0) body.pause();
        });
        body.once('end', () => {
          if (settled) return;
          settled = true;
          controller.close();
        });
        body.once('error', (error) => {
          if (settled) return;
          settled = true;
          controller.error(classify(error));
        });
      },
      pull: () => void body.resume(),
      cancel: () => {
        settled = true;
        // Dropping a body not read to its end closes its connection (it cannot be reused).
        body.destroy();
      },
    },
    { highWaterMark: 64 * 1024, size: (chunk) => chunk.byteLength },
  );
}
