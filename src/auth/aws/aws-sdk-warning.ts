/**
 * The AWS SDK (v3) prints an eight-line NodeVersionSupportWarning to stderr on Node < 22 when its
 * first client is made: SDK releases after January 2027 will need Node 22. connector-auth pins the
 * SDK at a release that supports Node 20 (package.json's engines say >= 20.19), so the warning is
 * about releases a user of ours never gets unless we ship them, and we raise engines before we do.
 * On every run of an AWS source it buried the one line connector-auth prints. Called before any
 * AWS SDK client is made; a user who sets the variable either way keeps their choice.
 */
export function quietAwsSdkNodeVersionWarning(): void {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
}
