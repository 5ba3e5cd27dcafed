/**
 * Migration 19: which item a fork inside an Iteration/Loop restarted (api/services/travel.ts,
 * `item`), so a fork's details say `forked_from.item`. Null for a fork outside loops and for
 * every row before it.
 */
import type { Migration } from './releasedMigrations';

export const TRAVEL_ITEM_MIGRATION: Migration = {
  version: 19,
  name: 'Time travel: the item a fork inside an Iteration or Loop restarted',
  statements: ['ALTER TABLE run_travel ADD COLUMN from_item integer'],
};
