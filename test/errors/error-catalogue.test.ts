import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  ConfigurationError,
  ConnectorError,
  ERROR_CATALOGUE,
  ExitCode,
  type ConnectorAuthError,
} from '../../src/errors/index.js';
import { renderErrorsDoc } from '../../scripts/errors-doc.js';

describe('error code catalogue', () => {
  it('docs/errors.md is generated from the current catalogue', async () => {
    const doc = await readFile(new URL('../../docs/errors.md', import.meta.url), 'utf8');
    expect(doc).toBe(renderErrorsDoc());
  });

  it('gives every code a one-line meaning', () => {
    for (const { errorClass, codes } of ERROR_CATALOGUE)
      for (const [code, meaning] of Object.entries(codes)) {
        expect(code, errorClass).toMatch(/^[a-z0-9_]*(<[a-z_]+>)?[a-z0-9_]*$/);
        expect(meaning.trim(), `${errorClass} ${code}`).not.toBe('');
        expect(meaning, `${errorClass} ${code}`).not.toContain('\n');
      }
  });

  it('lists each class with the exit code an instance carries', () => {
    const exitCodes = Object.fromEntries(ERROR_CATALOGUE.map((e) => [e.errorClass, e.exitCodes]));
    expect(exitCodes.ConfigurationError).toEqual([new ConfigurationError('m', { code: 'missing_key' }).exitCode]);
    expect(exitCodes.ConnectorError).toEqual([ExitCode.connector]);
  });

  it("types codes by class: another class's code does not compile, a connector's own code does", () => {
    // @ts-expect-error -- 'tls_untrusted' is SourceIdentityError's code, not ConfigurationError's
    expect(new ConfigurationError('m', { code: 'tls_untrusted' }).code).toBe('tls_untrusted');
    // Nor where any class will do: the code's type is the class's own, never inferred from the context.
    const anyClass = (): ConnectorAuthError =>
      // @ts-expect-error -- 'tls_untrusted' is not an AuthenticationError code either
      new AuthenticationError('m', { code: 'tls_untrusted' });
    expect(anyClass().exitCode).toBe(ExitCode.authentication);
    expect(new ConnectorError('m', { code: 'my_connector_code' }).code).toBe('my_connector_code');
  });

  it('no source compares an error by its class name: the class and the exit code decide', async () => {
    const src = fileURLToPath(new URL('../../src/', import.meta.url));
    const classNames = [
      'ConnectorAuthError',
      ...ERROR_CATALOGUE.map((e) => e.errorClass),
      'NotFoundError',
      'InvalidRequestError',
      'FeatureNotAvailableError',
    ];
    const quoted = new RegExp(`['"](${classNames.join('|')})['"]`);
    const offenders: string[] = [];
    for (const file of await readdir(src, { recursive: true })) {
      if (!file.endsWith('.ts') || file === join('errors', 'error-catalogue.ts')) continue;
      const text = await readFile(join(src, file), 'utf8');
      if (quoted.test(text)) offenders.push(file);
    }
    expect(offenders).toEqual([]);
  });
});
