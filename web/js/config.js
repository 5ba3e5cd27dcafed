/** The run view's settings from the API (the Temporal UI's address), fetched once per sign-in. */
import { get } from './api.js';

let cached = null;

export function uiConfig() {
  cached ??= get('/api/v1/ui/config').catch(() => {
    cached = null;
    return {};
  });
  return cached;
}

export function forgetConfig() {
  cached = null;
}
