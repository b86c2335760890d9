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

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Checks a raw HTTP answer is the contract's error: `status`, a JSON body of exactly
 * `{debugging_request_id, message}` (a UUID, and the message matching `message`), and the same id in
 * the `X-Request-Id` header.
 */
export async function expectErrorResponse(response: Response, status: number, message: RegExp): Promise<void> {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  const body = (await response.json()) as { debugging_request_id: string; message: string };
  expect(Object.keys(body).sort()).toEqual(['debugging_request_id', 'message']);
  expect(body.debugging_request_id).toMatch(UUID);
  expect(body.debugging_request_id).toBe(response.headers.get('x-request-id'));
  expect(body.message).toMatch(message);
}
