// The signed family's door: methods that sign with a key from the configuration, no identity service
// between (a self-signed JWT, OAuth 1.0a request signatures). built-in-methods.ts loads each method by path,
// and nothing outside the family uses its files yet.
export {};
