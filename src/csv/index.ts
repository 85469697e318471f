/**
 * CSV for connectors: the streaming parser of the `csv` project (csv-parse), as
 * `connector-auth/csv`. A connector project needs no node_modules of its own (the CLI resolves
 * `connector-auth` and its subpaths to itself), so a file connector gets a well-kept parser this
 * way instead of writing one. Loaded only by a connector that imports this subpath.
 */
export { parse, CsvError } from 'csv-parse';
export type { Options as CsvOptions, Info as CsvInfo, InfoRecord as CsvInfoRecord } from 'csv-parse';
