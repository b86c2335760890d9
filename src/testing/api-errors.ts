/** What a failed SDK call answered: its status and the error body's message. */
import Lithic from 'lithic';
import { expect } from 'vitest';

export interface ApiFailure {
  status: number;
  message: string;
}

/** Awaits an SDK call that must fail with an API error, and returns its status and message. */
export async function apiFailure(promise: Promise<unknown>): Promise<ApiFailure> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(Lithic.APIError);
  const apiError = error as InstanceType<typeof Lithic.APIError>;
  return { status: apiError.status as number, message: (apiError.error as { message: string }).message };
}
