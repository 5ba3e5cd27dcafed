import { expect } from 'vitest';
import { AppError } from '../../src/errors';

/** The AppError a call rejects with (the test fails when it resolves or throws something else). */
export async function failure(p: Promise<unknown>): Promise<AppError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}
