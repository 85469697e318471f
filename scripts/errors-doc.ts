/**
 * Writes docs/errors.md from the error code catalogue (src/errors/codes/), so the list of codes cannot
 * drift from the code: `npx tsx scripts/errors-doc.ts`. test/errors/error-catalogue.test.ts checks it
 * is current.
 */
import { writeFile } from 'node:fs/promises';
import { ERROR_CATALOGUE } from '../src/errors/index.js';

export function renderErrorsDoc(): string {
  const rows = ERROR_CATALOGUE.flatMap(({ errorClass, exitCodes, codes }) =>
    Object.entries(codes).map(
      ([code, meaning]) => `| \`${code}\` | \`${errorClass}\` | ${exitCodes.join(', ')} | ${meaning} |`,
    ),
  );
  return `# Error codes

Every error the framework reports carries a stable \`code\` for scripts, next to its message, the
configuration \`key\` to fix and a hint (\`--json\` prints them as an object). The exit code follows
from the class. This table is generated from \`src/errors/codes/\`
(\`npx tsx scripts/errors-doc.ts\`); a code that is not in it does not compile.

A code written \`name_<placeholder>\` is a family: its tail is the peer's own word, an HTTP status
(\`http_401\`), an FTP reply, a MySQL error number, a PostgreSQL SQLSTATE, an OAuth error or Node's
system error name (\`econnrefused\`). A code listed under two classes means the same refusal met at
two moments: in the probe it is the credential's fault (exit 3), in the connector's own reads the
connector's (exit 1). The subclasses the interface clients add (\`NotFoundError\`,
\`InvalidRequestError\`, \`FeatureNotAvailableError\`) use their parent's codes and exit code.

\`ConnectorError\` also takes any code a connector's own code gives it.

| code | class | exit code | meaning |
| --- | --- | --- | --- |
${rows.join('\n')}
`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await writeFile(new URL('../docs/errors.md', import.meta.url), renderErrorsDoc());
}
