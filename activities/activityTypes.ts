/**
 * The activity interface workflows call. Workflows import this file as types only, so no
 * activity code (HTTP, database) ever enters the workflow bundle.
 */
import type { createActivities } from './index';

export type Activities = ReturnType<typeof createActivities>;
