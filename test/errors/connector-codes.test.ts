import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE } from '../../src/errors/index.js';

/**
 * ConnectorError takes any string, so that a connector can throw its own codes; the compiler then
 * cannot hold the framework's own ConnectorError codes to the catalogue. This reads every
 * `new ConnectorError(…, { code })` in src/ and checks each literal the code can be.
 */

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const CONNECTOR_CODES = ERROR_CATALOGUE.find((e) => e.errorClass === 'ConnectorError')!.codes;

/** A catalogue entry as a pattern: `ftp_<reply>` matches `ftp_550` and the template `ftp_${…}`. */
const PATTERNS = Object.keys(CONNECTOR_CODES).map(
  (code) => new RegExp(`^${code.replace(/<[a-z_]+>/g, '(?:[a-z0-9_]+|\\$\\{[^}]*\\})')}$`),
);

/** The literals (and templates, as written) an expression can give: both arms of a conditional. */
function literals(node: ts.Expression): string[] {
  if (ts.isStringLiteral(node)) return [node.text];
  if (ts.isTemplateExpression(node) || ts.isNoSubstitutionTemplateLiteral(node)) return [node.getText().slice(1, -1)];
  if (ts.isConditionalExpression(node)) return [...literals(node.whenTrue), ...literals(node.whenFalse)];
  if (ts.isParenthesizedExpression(node)) return literals(node.expression);
  return [];
}

async function connectorErrorCodes(): Promise<string[]> {
  const found: string[] = [];
  for (const file of await readdir(SRC, { recursive: true })) {
    if (!file.endsWith('.ts')) continue;
    const source = ts.createSourceFile(file, await readFile(join(SRC, file), 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (ts.isNewExpression(node) && node.expression.getText() === 'ConnectorError')
        for (const argument of node.arguments ?? [])
          if (ts.isObjectLiteralExpression(argument))
            for (const property of argument.properties)
              if (ts.isPropertyAssignment(property) && property.name.getText() === 'code')
                found.push(...literals(property.initializer).map((code) => `${code} (${file})`));
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

describe("the framework's ConnectorError codes", () => {
  it('are all in the catalogue', async () => {
    const codes = await connectorErrorCodes();
    expect(codes.length).toBeGreaterThan(20);
    const unlisted = codes.filter((entry) => !PATTERNS.some((p) => p.test(entry.split(' ')[0]!)));
    expect(unlisted).toEqual([]);
  });
});
