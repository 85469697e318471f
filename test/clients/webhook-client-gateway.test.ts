import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createWebhookClient,
  FeatureNotAvailableError,
  InvalidRequestError,
  type WebhookClient,
} from '../../src/clients/index.js';
import { AuthenticationError, SourceUnreachableError } from '../../src/errors/index.js';
import { rejection } from '../helpers/rejection.js';

/**
 * The webhook client against a real HTTP server on loopback that answers the way gateways and
 * proxies do, which the emulator cannot (it answers JSON only): error statuses with text or HTML
 * bodies, and 204 / 202 with no body to a DELETE. The status decides; only a 200 must be JSON.
 */

type Answer = { status: number; body: string; type?: string };
let answer: Answer;
let server: Server;
let client: WebhookClient;
const token = 'tok_webhook_gateway_test_123';

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(answer.status, answer.body.length > 0 ? { 'content-type': answer.type ?? 'text/plain' } : {});
      res.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  client = await createWebhookClient({ baseUrl: `http://127.0.0.1:${port}`, token }, { retry: { retries: 0 } });
});

afterAll(async () => {
  await client.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  answer = { status: 200, body: '{}' };
});

const html = (title: string) => `<html><head><title>${title}</title></head><body><h1>${title}</h1></body></html>`;

describe('error statuses with a body that is not JSON', () => {
  for (const body of ['Unauthorized', html('401 Authorization Required'), '']) {
    it(`401 with ${JSON.stringify(body.slice(0, 20))}: AuthenticationError (exit 3) on get, list and delete`, async () => {
      answer = { status: 401, body, type: body.startsWith('<') ? 'text/html' : 'text/plain' };
      for (const call of [client.get(1), client.list(), client.delete(1)]) {
        const error = await rejection(call);
        expect(error).toBeInstanceOf(AuthenticationError);
        expect(error.exitCode).toBe(3);
        expect(error.code).toBe('http_401');
        expect(error.message).not.toContain(token);
      }
    });
  }

  it('403 with a text body: FeatureNotAvailableError (exit 3), the default message', async () => {
    answer = { status: 403, body: 'Forbidden' };
    for (const call of [client.get(1), client.list(), client.delete(1)]) {
      const error = await rejection(call);
      expect(error).toBeInstanceOf(FeatureNotAvailableError);
      expect(error.exitCode).toBe(3);
      expect((error as unknown as FeatureNotAvailableError).serviceMessage).toBe('feature not available');
    }
  });

  it("403 with a JSON body still carries the service's message", async () => {
    answer = {
      status: 403,
      body: JSON.stringify({ status: 'error', message: 'Webhooks are not enabled' }),
      type: 'application/json',
    };
    const error = (await rejection(client.get(1))) as unknown as FeatureNotAvailableError;
    expect(error.serviceMessage).toBe('Webhooks are not enabled');
  });

  it('404 with an empty or a JSON body is not_found; with an HTML body it is something else at that address (exit 4)', async () => {
    for (const body of ['', JSON.stringify({ code: 'NotFound', message: 'Webhook not found' })]) {
      answer = { status: 404, body, type: 'application/json' };
      expect(await client.get(1)).toEqual({ status: 'not_found' });
      expect(await client.delete(1)).toEqual({ status: 'not_found' });
    }
    answer = { status: 404, body: html('404 Not Found'), type: 'text/html' };
    for (const call of [client.get(1), client.delete(1)]) {
      const error = await rejection(call);
      expect([error.exitCode, error.code]).toEqual([4, 'http_404']);
      expect(error.hint).toContain('base URL');
    }
  });

  it('400 with a text body: InvalidRequestError (exit 2)', async () => {
    answer = { status: 400, body: 'Bad Request' };
    const error = await rejection(client.get(1));
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error.exitCode).toBe(2);
    expect(error.code).toBe('http_400');
  });

  it('502 with an HTML body: SourceUnreachableError (exit 4), not an invalid response', async () => {
    answer = { status: 502, body: html('502 Bad Gateway'), type: 'text/html' };
    const error = await rejection(client.get(1));
    expect(error).toBeInstanceOf(SourceUnreachableError);
    expect(error.code).toBe('http_502');
  });

  it('a 200 must still be JSON: a login page is an invalid response (exit 4)', async () => {
    answer = { status: 200, body: html('Sign in'), type: 'text/html' };
    const error = await rejection(client.get(1));
    expect(error).toBeInstanceOf(SourceUnreachableError);
    expect(error.code).toBe('invalid_response');
  });
});

describe('DELETE answered without a body', () => {
  it('204 No Content: deleted', async () => {
    answer = { status: 204, body: '' };
    expect(await client.delete(1)).toEqual({ status: 'deleted' });
  });

  it('202 Accepted (with or without a body): deleted', async () => {
    answer = { status: 202, body: '' };
    expect(await client.delete(1)).toEqual({ status: 'deleted' });
    answer = { status: 202, body: 'Accepted' };
    expect(await client.delete(1)).toEqual({ status: 'deleted' });
  });

  it('a 204 to a GET is still not a webhook (exit 4)', async () => {
    answer = { status: 204, body: '' };
    const error = await rejection(client.get(1));
    expect(error).toBeInstanceOf(SourceUnreachableError);
    expect(error.code).toBe('http_204');
  });
});
