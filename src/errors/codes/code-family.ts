/**
 * A catalogue names each code once with its meaning. A family of codes whose tail comes from a peer
 * (an HTTP status, a server's error name) is one entry with a placeholder: `http_<status>`. The
 * placeholders that stand for numbers become `${number}` in the type, any other `${string}`.
 */

/** A catalogue: each code (or family) and its meaning in one line. */
export type CodeCatalogue = Readonly<Record<string, string>>;

type NumericPlaceholder = 'status' | 'reply' | 'errno';

type Expand<K extends string> = K extends `${infer Head}<${infer Placeholder}>${infer Tail}`
  ? Placeholder extends NumericPlaceholder
    ? `${Head}${number}${Expand<Tail>}`
    : `${Head}${string}${Expand<Tail>}`
  : K;

/** The codes a catalogue allows, families expanded to template-literal types. */
export type CodeOf<C extends CodeCatalogue> = Expand<keyof C & string>;
