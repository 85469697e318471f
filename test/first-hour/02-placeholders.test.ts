import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { jsonOut, scaffold, scratch } from './support.js';

/**
 * Issue 24, point 2: a configuration still holding a template's placeholder (`<YOUR_API_TOKEN>`,
 * `AKIA_YOUR_ACCESS_KEY_ID`) passed validate and doctor, and the first error was a DNS failure. Now
 * it is a configuration error (exit 2) naming the key, in every command, before anything is sent.
 */

let work: Awaited<ReturnType<typeof scratch>>;
beforeAll(async () => {
  work = await scratch('placeholders');
});
afterAll(async () => {
  await work?.remove();
});

const FIRST_PLACEHOLDER: Record<string, string> = {
  'rest-api': 'token',
  'file-storage': 'aws_access_key_id',
  database: 'password',
  'pipeline-metadata': 'username',
};

describe('a scaffolded project, configuration.json as the template wrote it', () => {
  it.each(Object.entries(FIRST_PLACEHOLDER))('%s: validate, probe, debug and doctor name %s', async (template, key) => {
    const dir = await scaffold(work.root, template, template);
    for (const command of ['validate', 'probe', 'debug']) {
      const run = await cli([command, dir, '--json']);
      expect(run.code, `${command}: ${run.stderr}`).toBe(2);
      expect(jsonOut(run)).toMatchObject({ ok: false, code: 'placeholder_value', key, exit_code: 2 });
      expect(run.stderr).toContain(`key '${key}' still holds the template's placeholder`);
      // Nothing was tried: no DNS, connection or TLS error, only the configuration.
      expect(run.stderr).not.toMatch(/not found \(DNS\)|ENOTFOUND|refused|timed out/);
    }
    const doctor = await cli(['doctor', dir, '--json']);
    expect(doctor.code).toBe(2);
    expect(
      (jsonOut(doctor).findings as { check: string; key?: string; severity: string }[]).find(
        (f) => f.check === 'configuration-invalid',
      ),
    ).toMatchObject({ severity: 'error', key });
  });
});
