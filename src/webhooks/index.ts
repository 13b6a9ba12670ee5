// The webhooks domain as the app sees it: routes, and the delivery worker as a
// background task (registered on import, so server.ts and worker.ts run it).
import { backgroundStarters } from '../background.ts';
import { startWebhookDelivery } from './worker.ts';

export { webhookRoutes } from './routes.ts';

backgroundStarters.push(async (ctx) => {
  const c = ctx.config;
  const delivery = startWebhookDelivery(ctx, {
    concurrency: c.webhookConcurrency,
    retry: { baseDelayMs: c.webhookRetryBaseMs, maxDelayMs: c.webhookRetryMaxMs, windowMs: c.webhookRetryWindowMs },
    retentionMs: c.webhookRetentionDays * 24 * 3600_000,
  });
  return { name: 'webhook-delivery', stop: () => delivery.stop() };
});
