// oauth-sign ships no types: the one function the OAuth 1.0a peer (test/auth/oauth1.test.ts) calls.
declare module 'oauth-sign' {
  export function sign(
    signatureMethod: string,
    httpMethod: string,
    baseUri: string,
    params: Record<string, string | string[]>,
    consumerSecret: string,
    tokenSecret?: string,
  ): string;
}
