/** What the key catalogue says of one key, and the two ways of saying it. */
export interface KeySpec {
  secret: boolean;
  /**
   * Where the value goes as it is written: into an HTTP header (`header`: a line break, a NUL, a
   * control character or one outside Latin-1 cannot be carried), or into a URL, a connection
   * string or a protocol's command line (`line`: a line break or a NUL would end or split it).
   * Such a value is refused when its schema is read, naming the key, before anything is sent.
   */
  carriedIn?: 'header' | 'line';
  /** Which method, source or concern uses the key. */
  scope: string;
  description: string;
}

const spec =
  (secret: boolean) =>
  (scope: string, description: string, carriedIn?: KeySpec['carriedIn']): KeySpec => ({
    secret,
    scope,
    description,
    ...(carriedIn ? { carriedIn } : {}),
  });
export const secret = spec(true);
export const plain = spec(false);
