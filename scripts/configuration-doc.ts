/**
 * Writes docs/configuration.md from the key catalogue, so the table of keys cannot drift from the
 * code: `npx tsx scripts/configuration-doc.ts`. test/config/key-catalogue.test.ts checks it is current.
 */
import { writeFile } from 'node:fs/promises';
import { KEY_CATALOGUE } from '../src/config/index.js';

export function renderConfigurationDoc(): string {
  const rows = Object.entries(KEY_CATALOGUE).map(
    ([key, spec]) => `| \`${key}\` | ${spec.secret ? 'yes' : ''} | ${spec.scope} | ${spec.description} |`,
  );
  const carried = (where: string) =>
    Object.entries(KEY_CATALOGUE)
      .filter(([, spec]) => spec.carriedIn === where)
      .map(([key]) => `\`${key}\``)
      .join(', ');
  return `# Configuration keys

\`configuration.json\` is a flat JSON object of at most 100 keys, and every value is a string
(\`"10"\`, not \`10\`). This table is generated from \`src/config/keys/key-catalogue.ts\`
(\`npx tsx scripts/configuration-doc.ts\`).

A secret key's value is registered for redaction the moment the file is read, with its derived
forms. A key that no table declares is treated as secret too when its name contains \`secret\`,
\`password\`, \`passphrase\`, \`token\`, \`private_key\`, \`api_key\`, \`credential\` or \`signature\`; a
connector can name more with \`defineConnector({ secretKeys: [...] })\`. A secret key's default (a
connector's \`z.string().default('…')\`) is registered too, and no form or spec shows it.

A value sent as it is in an HTTP header (${carried('header')}; \`api_key\` and \`api_key_prefix\`
with \`api_key_location\` header) may hold no line break, NUL,
control character or character outside Latin-1; one that goes into a URL, a connection string or a
protocol's command line (${carried('line')}) no line break or NUL. Either is a configuration error
naming the key (exit 2) at \`validate\` and every command; whitespace at either end is ignored.

The configuration file is looked up as: \`--configuration FILE\`, then the \`CONNECTOR_CONFIGURATION\`
environment variable, then \`<project>/configuration.json\`.

| key | secret | used by | meaning |
| --- | --- | --- | --- |
${rows.join('\n')}
`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await writeFile(new URL('../docs/configuration.md', import.meta.url), renderConfigurationDoc());
}
