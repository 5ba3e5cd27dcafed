/**
 * Counts activity retries where the worker runs them: an inbound interceptor sees every execution
 * with its attempt number, local activities included, without touching any activity's code.
 * Add it to a worker with `interceptors: { activity: [activityMetricsInterceptor] }`.
 */
import type { ActivityInterceptors, ActivityInterceptorsFactory } from '@temporalio/worker';
import { activityRetries } from './registry';

export const activityMetricsInterceptor: ActivityInterceptorsFactory = (ctx): ActivityInterceptors => ({
  inbound: {
    execute(input, next) {
      if (ctx.info.attempt > 1) activityRetries.inc({ activity: ctx.info.activityType });
      return next(input);
    },
  },
});
