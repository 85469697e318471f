import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate } from '../../src/connector/index.js';
import { createLogger } from '../../src/log/index.js';
import { SecretRegistry } from '../../src/secrets/index.js';
import { loadSource } from '../../src/sources/index.js';
import type { SignedUrlSource } from '../../src/sources/index.js';
import { createCa, issueServer } from '../peers/certificates.js';
import { start, type S3rverPeer } from '../peers/s3rver.js';
import { sourceConformance } from './conformance.js';

/**
 * The signed-URL source against a real S3 API (s3rver, with Signature Version 4 checked as S3
 * checks it) and presigned URLs from the AWS SDK's own presigner: a fresh URL probes with one
 * ranged GET, an expired one fails before any request, a tampered one is refused by the server,
 * and no part of the query string ever shows in an error or a log line.
 */

type Failure = Error & { exitCode: number; key?: string; code: string; hint?: string };
const CSV = 'id,name\n1,alpha\n2,beta\n';

let s3: S3rverPeer;
/** The same bucket over https, its certificate from a CA of the test's own. */
let secureS3: S3rverPeer;
/** A fresh URL to each, signed for an hour. */
let fresh: string;
let secureFresh: string;
beforeAll(async () => {
  const ca = createCa();
  const certificate = issueServer(ca);
  [s3, secureS3] = await Promise.all([
    start({ buckets: ['exports'] }),
    start({
      buckets: ['exports'],
      tls: { key: certificate.privateKeyPem, cert: certificate.certificatePem },
      ca: ca.certificatePem,
    }),
  ]);
  await Promise.all([s3.put('exports', 'daily/report.csv', CSV), secureS3.put('exports', 'daily/report.csv', CSV)]);
  [fresh, secureFresh] = await Promise.all([
    s3.presign('exports', 'daily/report.csv', { expiresInSeconds: 3600 }),
    secureS3.presign('exports', 'daily/report.csv', { expiresInSeconds: 3600 }),
  ]);
});
afterAll(async () => {
  await Promise.all([s3?.stop(), secureS3?.stop()]);
});

async function connect(signedUrl: string, extra: Record<string, string> = {}, lines: string[] = []) {
  const registry = new SecretRegistry();
  // The logger's own registry is empty: lines are captured as our code wrote them, unredacted.
  const log = createLogger({
    format: 'json',
    level: 'debug',
    registry: new SecretRegistry(),
    write: (l) => lines.push(l),
  });
  const source = (await loadSource('signed-url')) as never;
  const auth = await authenticate<SignedUrlSource>(
    { auth_method: 'signed_url', signed_url: signedUrl, ...extra },
    { registry, log, source },
  );
  return { auth, lines, registry };
}

async function probeFailure(signedUrl: string, extra: Record<string, string> = {}) {
  const lines: string[] = [];
  try {
    const { auth } = await connect(signedUrl, extra, lines);
    try {
      await auth.probe();
    } finally {
      await auth.close();
    }
  } catch (e) {
    return { error: e as Failure, lines };
  }
  throw new Error('expected the probe to fail');
}

/** The query string, each signature parameter and their encoded forms: none may appear. */
function expectNoQuery(texts: string[], signedUrl: string) {
  const url = new URL(signedUrl);
  const secrets = [
    signedUrl.split('?')[1]!,
    url.searchParams.get('X-Amz-Signature')!,
    url.searchParams.get('X-Amz-Credential')!,
  ];
  const all = texts.join('\n');
  for (const secret of secrets)
    for (const form of [
      secret,
      encodeURIComponent(secret),
      Buffer.from(secret).toString('base64'),
      Buffer.from(secret).toString('base64url'),
      JSON.stringify(secret).slice(1, -1),
    ])
      expect(all.includes(form), `leaked ${form.slice(0, 16)}…`).toBe(false);
}

describe('signed-url source against s3rver', () => {
  it('a fresh URL: the probe is one GET of the first byte (206), then update() downloads', async () => {
    const url = await s3.presign('exports', 'daily/report.csv', { expiresInSeconds: 3600 });
    const before = s3.requests.length;
    const { auth, lines } = await connect(url);
    try {
      const probe = await auth.probe();
      expect(probe.outcome).toBe('HTTP 206');
      expect(probe.target).toBe(`GET ${s3.endpoint}/exports/daily/report.csv (first byte)`);
      expect(s3.requests.slice(before)).toEqual([
        { method: 'GET', path: '/exports/daily/report.csv', range: 'bytes=0-0' },
      ]);

      const response = await auth.source.fetch();
      expect(response.status).toBe(200);
      expect(await response.text()).toBe(CSV);
      const stream = await auth.source.stream();
      expect(await new Response(stream).text()).toBe(CSV);
      expect(auth.source.expiresAt!.getTime()).toBeGreaterThan(Date.now() + 3500_000);
      expect(auth.source.target).toBe(`${s3.endpoint}/exports/daily/report.csv`);
    } finally {
      await auth.close();
    }
    expectNoQuery([...lines], url);
  });

  it('expired by its own parameters → exit 2 with the expiry time, and no request', async () => {
    const signedAt = new Date(Date.now() - 2 * 3600_000);
    const url = await s3.presign('exports', 'daily/report.csv', { signedAt, expiresInSeconds: 3600 });
    const before = s3.requests.length;
    const { error, lines } = await probeFailure(url);
    expect(error.exitCode).toBe(2);
    expect(error.key).toBe('signed_url');
    expect(error.code).toBe('signed_url_expired');
    const expiry = new Date(Math.floor(signedAt.getTime() / 1000) * 1000 + 3600_000);
    expect(error.message).toContain(`expired at ${expiry.toISOString().slice(0, 16).replace('T', ' ')} UTC`);
    expect(error.message).toContain(`${s3.endpoint}/exports/daily/report.csv`);
    expect(s3.requests.length).toBe(before);
    expectNoQuery([error.message, error.hint ?? '', ...lines], url);
  });

  it('why GET and not HEAD: a URL is signed for one method, as S3 checks it (GET-signed refuses HEAD and the reverse)', async () => {
    const getUrl = await s3.presign('exports', 'daily/report.csv');
    expect((await fetch(getUrl, { method: 'HEAD' })).status).toBe(403);
    const url = await s3.presign('exports', 'daily/report.csv', { method: 'HEAD' });
    const headOk = await fetch(url, { method: 'HEAD' });
    expect(headOk.status).toBe(200);
    const { error } = await probeFailure(url);
    expect(error.exitCode).toBe(3);
  });

  it('a URL to a missing object → exit 4 (nothing there), naming signed_url', async () => {
    const { error } = await probeFailure(await s3.presign('exports', 'daily/missing.csv'));
    expect(error.exitCode).toBe(4);
    expect(error.key).toBe('signed_url');
    expect(error.message).toContain('NoSuchKey');
  });

  it('a URL that expires within 5 minutes → a warning with the time', async () => {
    const url = await s3.presign('exports', 'daily/report.csv', { expiresInSeconds: 120 });
    const { auth, lines } = await connect(url);
    try {
      expect((await auth.probe()).outcome).toBe('HTTP 206');
    } finally {
      await auth.close();
    }
    const warnings = lines
      .map((l) => JSON.parse(l) as { level: string; message: string })
      .filter((l) => l.level === 'WARNING');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.message).toMatch(/expires at \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC \(in [12] minutes?\)/);
    expectNoQuery(lines, url);
  });

  it('plain http:// to a non-loopback host → exit 2 before any request', async () => {
    const { error } = await probeFailure(
      'http://files.example.com/x.csv?X-Amz-Signature=0123456789abcdef&X-Amz-Credential=AKIA%2Fx',
    );
    expect(error.exitCode).toBe(2);
    expect(error.code).toBe('plain_http_refused');
    expect(error.message).not.toContain('0123456789abcdef');
  });
});

describe('signed-url source behind a redirect (a CDN answering 302)', () => {
  let cdn: Server;
  let cdnUrl: string;
  let target: string;
  let hits = 0;
  beforeAll(async () => {
    target = await s3.presign('exports', 'daily/report.csv', { expiresInSeconds: 3600 });
    cdn = createServer((req, res) => {
      hits++;
      res.writeHead(302, { location: target });
      res.end();
    });
    await new Promise<void>((resolve) => cdn.listen(0, '127.0.0.1', resolve));
    cdnUrl = `http://127.0.0.1:${(cdn.address() as AddressInfo).port}/download/report.csv?token=cdn-signed-token-5678&expires=never`;
  });
  afterAll(async () => {
    await new Promise((resolve) => cdn.close(resolve));
  });

  it('the probe takes 302 as healthy without following it; fetch() follows to the file', async () => {
    const before = s3.requests.length;
    const { auth, lines } = await connect(cdnUrl);
    try {
      const probe = await auth.probe();
      expect(probe.outcome).toBe(`HTTP 302 → ${s3.endpoint}/exports/daily/report.csv`);
      expect(hits).toBe(1);
      expect(s3.requests.length).toBe(before);
      const response = await auth.source.fetch();
      // The answer says where it came from, after the redirect, as fetch's Response does.
      expect([response.url, response.redirected]).toEqual([target, true]);
      expect(await response.text()).toBe(CSV);
    } finally {
      await auth.close();
    }
    const all = lines.join('\n');
    expect(all).not.toContain('cdn-signed-token-5678');
    expect(all).not.toContain(new URL(target).searchParams.get('X-Amz-Signature')!);
  });
});

describe('signed-url downloads and timeout_seconds', () => {
  let slow: Server;
  let base: string;
  /** `/trickle`: 30 KiB in 30 pieces over 3 s; `/stall`: 1 KiB, then nothing for 3 s, then the rest. */
  beforeAll(async () => {
    slow = createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(30 * 1024) });
      const piece = Buffer.alloc(1024, 0x61);
      // The first piece at once (with the headers), the rest at the path's pace.
      res.write(piece);
      let sent = 1;
      const timer = setInterval(
        () => {
          res.write(piece);
          if (++sent === 30) {
            clearInterval(timer);
            res.end();
          }
        },
        path === '/stall' ? 3000 : 100,
      );
      res.on('close', () => clearInterval(timer));
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(slow.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    slow.closeAllConnections();
    await new Promise((resolve) => slow.close(resolve));
  });

  it('a download longer than timeout_seconds completes while its body keeps arriving', async () => {
    const { auth } = await connect(`${base}/trickle?sig=download-signature-4242&expires=never`, {
      timeout_seconds: '1',
    });
    try {
      const stream = await auth.source.stream();
      let bytes = 0;
      for await (const chunk of stream) bytes += chunk.byteLength;
      expect(bytes).toBe(30 * 1024);
    } finally {
      await auth.close();
    }
  });

  it('a body that stops arriving for timeout_seconds fails as a timeout (exit 4), classified', async () => {
    const { auth } = await connect(`${base}/stall?sig=download-signature-4242&expires=never`, { timeout_seconds: '1' });
    try {
      const stream = await auth.source.stream();
      const reading = (async () => {
        for await (const _ of stream);
      })();
      const error = (await reading.then(
        () => {
          throw new Error('expected the download to fail');
        },
        (e: unknown) => e,
      )) as Failure;
      expect([error.exitCode, error.code]).toEqual([4, 'timeout']);
      expect(error.message).not.toContain('download-signature-4242');
    } finally {
      await auth.close();
    }
  });
});

/** The URL with its host and port replaced: the same signature, sent where nothing (or no one useful) listens. */
const elsewhere = (signedUrl: string, port: number) => {
  const url = new URL(signedUrl);
  url.port = String(port);
  return url.href;
};

sourceConformance({
  source: 'signed-url',
  good: () => ({ auth_method: 'signed_url', signed_url: fresh }),
  outcome: 'HTTP 206',
  probeLine: () => `GET ${s3.endpoint}/exports/daily/report.csv (first byte) → HTTP 206`,
  upserts: 2,
  wrongCredentials: [
    {
      name: 'a tampered signature (the server refuses it: 403 SignatureDoesNotMatch)',
      config: (wrong) => {
        const url = new URL(fresh);
        url.searchParams.set('X-Amz-Signature', wrong);
        return { auth_method: 'signed_url', signed_url: url.href };
      },
      key: 'signed_url',
      message: { contains: ['HTTP 403', 'SignatureDoesNotMatch'] },
    },
  ],
  unreachable: {
    config: (port) => ({ auth_method: 'signed_url', signed_url: elsewhere(fresh, port) }),
    key: 'signed_url',
    message: { contains: ['connection refused'] },
  },
  silent: (port) => ({ auth_method: 'signed_url', signed_url: elsewhere(fresh, port), timeout_seconds: '0.5' }),
  untrusted: [
    {
      name: 'an https server whose CA is not in tls_ca_certificate',
      config: () => ({ auth_method: 'signed_url', signed_url: secureFresh }),
      key: 'tls_ca_certificate',
    },
  ],
  // The signature and the credential scope (the query's secret parts; a window of the query shows in either).
  secrets: () =>
    [fresh, secureFresh].flatMap((signed) => {
      const query = new URL(signed).searchParams;
      return [query.get('X-Amz-Signature')!, query.get('X-Amz-Credential')!];
    }),
  connector: `import { defineConnector } from 'connector-auth';
export default defineConnector({
  source: 'signed-url',
  schema: () => [{ table: 'rows', primary_key: ['id'] }],
  async update({ source, op }) {
    const [header, ...lines] = (await (await source.fetch()).text()).trim().split('\\n');
    const names = header.split(',');
    for (const line of lines) await op.upsert('rows', Object.fromEntries(line.split(',').map((v, i) => [names[i], v])));
    await op.checkpoint({ done: true });
  },
});
`,
});
