import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { describeConfiguration, type ConfigurationField } from '../../src/project/index.js';

/**
 * describeConfiguration is the one model forms and specs are generated from (the gRPC host's
 * ConfigurationForm, Airbyte's spec): which keys exist, which are secret or required, and now how a
 * value is given (text, a choice, a switch) and what an absent key means, read from the schemas.
 */

const byKey = (fields: ConfigurationField[]) => Object.fromEntries(fields.map((f) => [f.key, f]));

describe('describeConfiguration', () => {
  it('reads defaults, choices and switches from the schemas themselves', async () => {
    const d = await describeConfiguration({ source: 'rest' });
    const common = byKey(d.common);
    expect(common.timeout_seconds).toMatchObject({ kind: 'text', default: '10', required: false, secret: false });
    expect(common.tls_skip_verify).toMatchObject({ kind: 'switch', default: 'false' });
    expect(common).not.toHaveProperty('auth_method');

    const apiKey = byKey(d.methods.find((m) => m.name === 'api_key')!.fields);
    expect(apiKey.api_key).toMatchObject({ secret: true, required: true, kind: 'text' });
    expect(apiKey.api_key).not.toHaveProperty('default');
    expect(apiKey.api_key_location).toMatchObject({ kind: 'choice', values: ['header', 'query'], default: 'header' });
    expect(apiKey.api_key_header).toMatchObject({ kind: 'text', default: 'X-API-Key' });

    const source = byKey(d.sourceFields);
    expect(source.base_url).toMatchObject({ required: true, kind: 'text' });
    expect(source.probe_expect_status).toMatchObject({ default: '200' });
    // An empty default ("nothing given") is not shown as one.
    expect(source.probe_path).not.toHaveProperty('default');
  });

  it('lists the TLS material keys for the sources that read them, and not for sftp', async () => {
    for (const name of ['rest', 'postgres', 's3', 'signed-url'] as const) {
      const d = await describeConfiguration({ source: name });
      expect(d.tls.map((f) => f.key), name).toEqual([
        'tls_ca_certificate',
        'tls_client_certificate',
        'tls_client_private_key',
        'tls_client_private_key_passphrase',
        'tls_client_pkcs12',
        'tls_client_pkcs12_passphrase',
      ]);
      expect(byKey(d.tls).tls_client_private_key!.secret).toBe(true);
    }
    const sftp = await describeConfiguration({ source: 'sftp' });
    expect(sftp.tls).toEqual([]);
    expect(byKey((await describeConfiguration({ source: 'postgres' })).sourceFields).sslmode).toMatchObject({
      kind: 'choice',
      values: ['disable', 'require', 'verify-ca', 'verify-full'],
      default: 'verify-full',
    });
  });

  it("describes the connector's own zod keys: defaults after refinements and transforms, enums, secrets", async () => {
    const d = await describeConfiguration({
      source: 'rest',
      secretKeys: ['signing_phrase'],
      configuration: z.object({
        items_path: z.string().default('items'),
        batch_size: z.string().default('1000').refine((v) => /^\d+$/.test(v)).transform(Number),
        mode: z.enum(['full', 'incremental']).default('incremental'),
        signing_phrase: z.string().describe('the phrase the API signs with'),
      }),
    });
    const own = byKey(d.connector);
    expect(own.items_path).toMatchObject({ kind: 'text', default: 'items', required: false });
    expect(own.batch_size).toMatchObject({ default: '1000' });
    expect(own.mode).toMatchObject({ kind: 'choice', values: ['full', 'incremental'], default: 'incremental' });
    expect(own.signing_phrase).toMatchObject({ secret: true, required: true, description: 'the phrase the API signs with' });
  });
});
