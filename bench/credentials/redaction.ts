/**
 * Redaction throughput with 100 registered secrets (each with its derived forms), one pass of the
 * DFA, against the naive redactor: a loop of `replaceAll` over the same forms. Also the same lines
 * as JSON log lines that quote a query string and a quoted word: every `\"` and `&` makes the pass
 * read the decoded view beside the text (src/secrets/decoded-view.ts), the slower path.
 *
 * And a registry of 100,000 secrets (a long-running host that has seen that many tokens: the sparse
 * automaton takes over): registering them, and the first redaction, which compiles the automaton,
 * against the naive look in the same run, `includes` of every token in the same line.
 */
import { randomBytes } from 'node:crypto';
import { SecretRegistry, derivedForms } from '../../src/secrets/index.js';
// The previous algorithm, kept for the comparison: the automaton alone, reading every character.
import { compilePatterns } from '../../src/secrets/multi-pattern-matcher.js';

export async function run(): Promise<Record<string, number>> {
  const registry = new SecretRegistry();
  const values = Array.from({ length: 100 }, () => randomBytes(24).toString('base64url'));
  values.forEach((v, i) => registry.register(`key_${i}`, v));
  const forms = values.flatMap((v) => derivedForms(v));

  // ~20 MB of log-like lines, one secret in roughly every 20 lines.
  const words = 'GET /v1/items status 200 took 12ms user id=42 page cursor next request sent response ok'.split(' ');
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < 20_000_000; i++) {
    let line = '';
    while (line.length < 160) line += words[(i * 7 + line.length) % words.length] + ' ';
    if (i % 20 === 0) line += values[i % values.length];
    lines.push(line);
    size += line.length;
  }
  const text = lines.join('\n');

  const time = (fn: () => void) => {
    const start = performance.now();
    fn();
    return (performance.now() - start) / 1000;
  };
  // Warm-up pass: JIT-compiles the scanner and makes V8 flatten the concatenated line strings once,
  // so both contenders are timed on the same flat strings (flattening is V8's cost, not redaction's).
  for (const line of lines) registry.redact(line);
  // The automaton alone (issue 22's algorithm, before the pre-checks and the block-shift scan), on the
  // same lines; it finds the same secrets (the bench checks the count).
  const automaton = compilePatterns(forms);
  for (const line of lines) automaton.findAll(line);
  let found = 0;
  let foundBefore = 0;
  for (const line of lines) if (registry.redact(line) !== line) found++;
  for (const line of lines) if (automaton.findAll(line) !== null) foundBefore++;
  if (found !== foundBefore || found !== Math.ceil(lines.length / 20))
    throw new Error(
      `redacted ${found} lines, the automaton alone ${foundBefore}, of ${Math.ceil(lines.length / 20)} with a secret`,
    );
  // The naive loop over a sixth of the lines (the whole set would dominate the run), a third of that
  // sixth per round. The contenders alternate in rounds, each ratio taken within its round: on a
  // shared machine a burst of load then weighs on both sides of a ratio, not on one.
  const sample = lines.slice(0, Math.floor(lines.length / 6));
  const rounds = [0, 1, 2].map((round) => {
    const part = sample.filter((_, i) => i % 3 === round);
    const partSize = part.reduce((n, l) => n + l.length, 0);
    const perLine = time(() => {
      for (const line of lines) registry.redact(line);
    });
    const previous = time(() => {
      for (const line of lines) automaton.findAll(line);
    });
    const naive = time(() => {
      for (let line of part) for (const form of forms) line = line.replaceAll(form, '<redacted>');
    });
    return { perLine, previous, naiveMbPerS: partSize / 1e6 / naive };
  });
  const perLine = median(rounds.map((r) => r.perLine));
  const whole = time(() => registry.redact(text));
  const jsonLines = lines.map((line) =>
    JSON.stringify({
      level: 'INFO',
      message: `${line} GET /v1/items?page=2&limit=100 said "ok"`,
      message_origin: 'connector',
    }),
  );
  const jsonSize = jsonLines.reduce((n, l) => n + l.length, 0);
  for (const line of jsonLines) registry.redact(line);
  const json = time(() => {
    for (const line of jsonLines) registry.redact(line);
  });
  const mb = size / 1e6;
  return {
    redaction_mb_per_s_per_line: round(mb / perLine),
    redaction_mb_per_s_whole_text: round(mb / whole),
    redaction_previous_automaton_mb_per_s_per_line: round(mb / median(rounds.map((r) => r.previous))),
    redaction_vs_previous_ratio: round(median(rounds.map((r) => r.previous / r.perLine))),
    redaction_mb_per_s_json_lines_with_escapes: round(jsonSize / 1e6 / json),
    redaction_naive_replaceall_mb_per_s: round(median(rounds.map((r) => r.naiveMbPerS))),
    redaction_speedup_ratio: round(median(rounds.map((r) => mb / r.perLine / r.naiveMbPerS))),
    redaction_rounds: rounds.length,
    redaction_registered_forms: forms.length,
    ...manySecrets(),
  };
}

function manySecrets(): Record<string, number> {
  const tokens = Array.from({ length: 100_000 }, (_, i) => `cct_${i.toString(36)}_${(i * 7919).toString(36)}xyz`);
  const line = `first ${tokens[0]} middle ${tokens[54_321]} last ${tokens[99_999]}`;
  const rss = process.memoryUsage().rss;
  const registry = new SecretRegistry();
  let started = performance.now();
  for (const token of tokens) registry.register('connect_card.token', token);
  const registerMs = performance.now() - started;
  started = performance.now();
  registry.redact(line);
  const firstRedactMs = performance.now() - started;
  started = performance.now();
  for (let i = 0; i < 100; i++) registry.redact(line);
  const redactMs = (performance.now() - started) / 100;
  const grownMb = (process.memoryUsage().rss - rss) / 1e6;
  started = performance.now();
  let found = 0;
  for (const token of tokens) if (line.includes(token)) found++;
  const naiveMs = performance.now() - started;
  if (found !== 3) throw new Error('the naive look found the wrong tokens');
  return {
    redaction_100k_secrets_register_ms: Math.round(registerMs),
    redaction_100k_secrets_first_redact_ms: Math.round(firstRedactMs),
    redaction_100k_secrets_redact_line_ms: round(redactMs),
    redaction_100k_secrets_naive_includes_ms: round(naiveMs),
    redaction_100k_secrets_vs_naive_ratio: round(naiveMs / redactMs),
    redaction_100k_secrets_rss_growth_mb: Math.round(grownMb),
  };
}

const round = (n: number) => Math.round(n * 10) / 10;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

if (import.meta.url === `file://${process.argv[1]}`) console.log(JSON.stringify(await run(), null, 2));
