import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { connectionSpecification } from '../../src/hosts/airbyte/index.js';
import { configurationForm } from '../../src/hosts/fivetran/index.js';
import { describeConfiguration } from '../../src/project/index.js';

/** describeConfiguration: the key model the hosts' forms and specs are built from. */

const field = (fields: { key: string }[], key: string) => fields.find((f) => f.key === key);

describe('describeConfiguration', () => {
  it("reads defaults and choices from the schemas themselves: the source's, the method's, the connector's", async () => {
    const d = await describeConfiguration({
      source: 'postgres',
      configuration: z.object({
        batch_size: z.string().default('1000').transform(Number),
        mode: z.enum(['full', 'delta']).optional(),
      }),
    });
    expect(field(d.sourceFields, 'port')).toMatchObject({ default: '5432', required: false });
    expect(field(d.sourceFields, 'sslmode')).toMatchObject({
      default: 'verify-full',
      choices: ['disable', 'require', 'verify-ca', 'verify-full'],
    });
    expect(field(d.sourceFields, 'host')).toEqual(expect.objectContaining({ required: true }));
    expect(field(d.sourceFields, 'host')).not.toHaveProperty('default');
    expect(field(d.common, 'timeout_seconds')).toMatchObject({ default: '10' });
    expect(field(d.common, 'tls_skip_verify')).toMatchObject({ default: 'false', choices: ['true', 'false'] });
    expect(field(d.connector, 'batch_size')).toMatchObject({ default: '1000' });
    expect(field(d.connector, 'mode')).toMatchObject({ choices: ['full', 'delta'] });
    expect(field(d.connector, 'mode')).not.toHaveProperty('default');
  });

  it('lists the TLS keys for the sources that read them, secret where the catalogue says so; none for sftp', async () => {
    for (const source of ['rest', 'postgres'] as const) {
      const d = await describeConfiguration({ source });
      expect(d.tls.map((f) => `${f.key}${f.secret ? '*' : ''}`)).toEqual([
        'tls_ca_certificate',
        'tls_client_certificate',
        'tls_client_private_key*',
        'tls_client_private_key_passphrase*',
        'tls_client_pkcs12*',
        'tls_client_pkcs12_passphrase*',
      ]);
    }
    expect((await describeConfiguration({ source: 'sftp' })).tls).toEqual([]);
  });

  it('api_key: the header default and the location choices come from the method', async () => {
    const d = await describeConfiguration({ source: 'rest' });
    const apiKey = d.methods.find((m) => m.name === 'api_key')!;
    expect(field(apiKey.fields, 'api_key_header')).toMatchObject({ default: 'X-API-Key' });
    expect(field(apiKey.fields, 'api_key_location')).toMatchObject({ default: 'header', choices: ['header', 'query'] });
    expect(field(apiKey.fields, 'api_key')).toMatchObject({ secret: true, required: true });
  });

  it("shows no default for a secret key, by name or by the connector's secretKeys, in the Fivetran form or Airbyte's spec", async () => {
    const d = await describeConfiguration({
      source: 'rest',
      secretKeys: ['hmac'],
      configuration: z.object({
        signing_secret: z.string().default('default-signing-value'),
        hmac: z.string().default('default-hmac-value'),
        page_size: z.string().default('100'),
      }),
    });
    expect(field(d.connector, 'signing_secret')).toEqual(expect.objectContaining({ secret: true, required: false }));
    expect(field(d.connector, 'signing_secret')).not.toHaveProperty('default');
    expect(field(d.connector, 'hmac')).toEqual(expect.objectContaining({ secret: true }));
    expect(field(d.connector, 'hmac')).not.toHaveProperty('default');
    expect(field(d.connector, 'page_size')).toMatchObject({ default: '100' });
    const form = JSON.stringify(configurationForm(d));
    const spec = JSON.stringify(connectionSpecification(d, 'test'));
    for (const printed of [form, spec]) {
      expect(printed).not.toContain('default-signing-value');
      expect(printed).not.toContain('default-hmac-value');
      expect(printed).toContain('"100"');
    }
  });
});
