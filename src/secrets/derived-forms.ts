/**
 * The shapes a secret takes on its way out of a process. A redactor that knows only the raw value
 * misses the base64 in a Basic header, the %-encoded password in a URL, the escaped quote in a JSON
 * body or one line of a PEM key. Each form here is registered beside the raw value.
 */

/** Lines of a PEM body shorter than this are too generic to redact on their own (e.g. a final "=="). */
const MIN_PEM_LINE = 16;

export function derivedForms(value: string): string[] {
  const forms = new Set<string>([value]);
  forms.add(encodeURIComponent(value));
  // application/x-www-form-urlencoded writes spaces as '+'.
  forms.add(encodeURIComponent(value).replace(/%20/g, '+'));
  forms.add(JSON.stringify(value).slice(1, -1));
  forms.add(Buffer.from(value, 'utf8').toString('base64'));
  forms.add(Buffer.from(value, 'utf8').toString('base64url'));
  for (const line of pemBodyLines(value)) forms.add(line);
  return [...forms];
}

/** Forms of an HTTP Basic credential: the header carries base64("user:password"). */
export function basicCredentialForms(username: string, password: string): string[] {
  const pair = `${username}:${password}`;
  return [Buffer.from(pair, 'utf8').toString('base64'), encodeURIComponent(pair)];
}

function pemBodyLines(value: string): string[] {
  if (!value.includes('-----BEGIN ')) return [];
  return value
    .split(/\r?\n|\\n/)
    .map((line) => line.trim())
    .filter((line) => line.length >= MIN_PEM_LINE && !line.startsWith('-----') && !line.includes(':'));
}
