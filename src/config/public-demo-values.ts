/**
 * Credentials that are public on purpose: the emulator's demo key, secret and tokens, the default
 * root password of a fresh MinIO, the password the database template's local sample data gives its
 * reader role. Each template's `configuration.local.json` uses them against a server on the author's
 * own machine. They are still redacted like any secret, but `doctor` does not call them leaked when
 * the template's own files show them (it notes instead that they are demo values: right for a local
 * target, never for a real source).
 */
export const DEMO_VALUES = {
  emulatorApiKey: 'demo_api_key',
  emulatorApiSecret: 'demo-api-secret-5f1c9e',
  emulatorWebhookToken: 'demo-webhook-token-8b2d47',
  /** The emulator's example REST API (the rest-api template's local target). */
  exampleApiToken: 'demo-rest-token-2e8a51',
  /** A fresh MinIO's root user and password (the file-storage template's local target). */
  minioRootUser: 'minioadmin',
  minioRootPassword: 'minioadmin',
  /** The reader role that templates/database/sample-data.sql creates. */
  databaseReaderPassword: 'demo-reader-password-c4f1',
} as const;

const PUBLIC = new Set<string>(Object.values(DEMO_VALUES));

export function isPublicDemoValue(value: string): boolean {
  return PUBLIC.has(value);
}
