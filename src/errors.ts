/**
 * Domain errors. Domain and storage code throws these; the HTTP layer (`http/errors.ts`) maps each
 * to its status code and the contract's error body. Messages name the field or resource at fault,
 * because they are shown to API users as they are.
 */

/** The request is invalid whatever the state (400). */
export class InvalidRequestError extends Error {
  readonly status = 400;
}

/** No such resource for this program (404). Another program's resource is reported the same way. */
export class NotFoundError extends Error {
  readonly status = 404;
}

/** The same idempotency key is still being processed (409). */
export class ConflictError extends Error {
  readonly status = 409;
}

/** Well-formed, but the current state forbids it (422). */
export class UnprocessableError extends Error {
  readonly status = 422;
}

export type DomainError = InvalidRequestError | NotFoundError | ConflictError | UnprocessableError;

export function isDomainError(error: unknown): error is DomainError {
  return (
    error instanceof InvalidRequestError ||
    error instanceof NotFoundError ||
    error instanceof ConflictError ||
    error instanceof UnprocessableError
  );
}

/** `notFound('card', token)` → "card 'f4…' not found"; with a field: "card_token: card 'f4…' not found". */
export function notFound(resource: string, token: string, field?: string): NotFoundError {
  const message = `${resource} '${token}' not found`;
  return new NotFoundError(field ? `${field}: ${message}` : message);
}

/** Thrown when an internal invariant does not hold: a bug, answered as 500 and logged. */
export class InvariantViolation extends Error {}

export function invariant(condition: unknown, message: string): asserts condition {
  if (!condition) throw new InvariantViolation(`invariant violated: ${message}`);
}
