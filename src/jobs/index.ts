// The jobs domain as the app sees it: its routes, and its worker loop as a
// background task (started by server.ts / worker.ts, never by the test harness).
import { backgroundStarters } from '../background.ts';
import { startJobWorker } from './worker.ts';

export { jobRoutes } from './routes.ts';
export { startJobWorker, type JobWorker, type JobWorkerOptions } from './worker.ts';

backgroundStarters.push(async (ctx) => {
  const worker = startJobWorker(ctx);
  return { name: 'job-worker', stop: () => worker.stop() };
});
