import { z } from 'zod';

/**
 * The records of the sync webhook interface (specification 2.4, 4.4–4.6). Events named by the
 * specification and the ones the real service documents; a webhook may name others (section 6
 * rule 2 leaves lifecycle event names open), so `events` is any list of strings.
 */
export const WEBHOOK_EVENTS = [
  'sync.alert.raised',
  'sync.alert.resolved',
  'sync.triggered',
  'sync.started',
  'sync.completed',
  'sync.success',
  'sync.failed',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** Section 2.4 and 8: webhook endpoints are HTTPS only. */
export function isHttpsUrl(value: string): boolean {
  if (!/^https:\/\//i.test(value)) return false;
  try {
    return new URL(value).protocol === 'https:';
  } catch {
    return false;
  }
}

export const webhookSchema = z.looseObject({
  id: z.number().int().nonnegative(),
  name: z.string(),
  description: z.string().nullable().optional(),
  /** Absent, null or empty: every event (section 6 rule 1). */
  events: z.array(z.string()).nullable().optional(),
  endpoint: z.string().refine(isHttpsUrl, { message: 'must be an HTTPS URL' }),
});

/** The list response does not show `id` (section 2.4); it is kept when the service sends it. */
export const listedWebhookSchema = webhookSchema.extend({ id: z.number().int().nonnegative().optional() });

export type Webhook = z.output<typeof webhookSchema>;
export type ListedWebhook = z.output<typeof listedWebhookSchema>;

/** Every outcome of a fetch, one shape whatever the wire form (a 200 body or a 404). */
export type WebhookFetchResult =
  { status: 'success'; webhook: Webhook } | { status: 'not_found' } | { status: 'error'; message?: string };

export type WebhookListResult =
  { status: 'success'; webhooks: ListedWebhook[] } | { status: 'error'; message?: string };

export type WebhookDeleteResult =
  { status: 'deleted' } | { status: 'not_found' } | { status: 'error'; message?: string };

/** Does a webhook with this `events` selection receive this event? */
export function webhookSelects(events: readonly string[] | null | undefined, event: string): boolean {
  return !events || events.length === 0 || events.includes(event);
}
