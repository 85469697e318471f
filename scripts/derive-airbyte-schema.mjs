#!/usr/bin/env node
/**
 * Derives the JSON Schema of one Airbyte protocol message (AirbyteMessage) from the published
 * protocol definition, airbyte_protocol.yaml of airbytehq/airbyte-protocol (MIT; its licence is in
 * protocols/airbyte/LICENSE). The tests validate every line the `airbyte` commands print against the
 * result, so the protocol is checked against its publisher's definition, not against our reading of it.
 *
 *   node scripts/derive-airbyte-schema.mjs <airbyte_protocol.yaml> [commit]  > protocols/airbyte/airbyte-message.schema.json
 *
 * What the conversion does, and why:
 * - the root becomes a `$ref` to `#/definitions/AirbyteMessage`, so a line is validated as one message;
 *   every definition is kept (they reference one another);
 * - `existingJavaType` is dropped: a hint to the Java code generator, not JSON Schema, which a strict
 *   validator (Ajv) refuses as an unknown keyword;
 * - `$id` is replaced by our own (the upstream one points to a moved file) and `$comment` says where
 *   the definitions came from; the upstream `version` becomes `x-protocol-version`.
 * Nothing else changes: field names, types, enums and required lists are the publisher's.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

const [file, commit] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: node scripts/derive-airbyte-schema.mjs <airbyte_protocol.yaml> [commit]\n');
  process.exit(2);
}
const upstream = parse(readFileSync(file, 'utf8'));
if (!upstream?.definitions?.AirbyteMessage) {
  process.stderr.write(`${file} has no definitions.AirbyteMessage: is it airbyte_protocol.yaml?\n`);
  process.exit(1);
}

/** A deep copy without the code generator's keyword. */
function strip(node) {
  if (Array.isArray(node)) return node.map(strip);
  if (node === null || typeof node !== 'object') return node;
  const out = {};
  for (const [key, value] of Object.entries(node)) if (key !== 'existingJavaType') out[key] = strip(value);
  return out;
}

const schema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: 'connector-auth/protocols/airbyte/airbyte-message.schema.json',
  $comment: `Derived by scripts/derive-airbyte-schema.mjs from airbytehq/airbyte-protocol protocol-models/src/main/resources/airbyte_protocol/v0/airbyte_protocol.yaml${commit ? ` at ${commit}` : ''} (MIT, see LICENSE beside this file).`,
  title: 'AirbyteMessage',
  'x-protocol-version': upstream.version,
  $ref: '#/definitions/AirbyteMessage',
  definitions: strip(upstream.definitions),
};
process.stdout.write(`${JSON.stringify(schema, null, 2)}\n`);
