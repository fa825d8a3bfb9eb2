/**
 * Errors a route can throw; the app's error handler turns them into the platform's bodies:
 * `{"detail": "<message>"}` for every status but 422, and the HTTPValidationError for 422.
 */
import type { ValidationErrorItem } from '../api/schemas/control-plane';

/** An error answered with `status` and `{"detail": message}`. The message must never contain a secret. */
export class HttpError extends Error {
  constructor(
    /** HTTP status code. */
    readonly status: 400 | 401 | 403 | 404 | 405 | 409 | 413 | 429 | 500 | 503,
    message: string,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/** A 422 carrying FastAPI-style validation items, each naming the parameter (`loc`) it is about. */
export class RequestValidationError extends Error {
  constructor(
    /** One item per problem, all of them at once. */
    readonly items: ValidationErrorItem[],
  ) {
    super(items.map((item) => `${item.loc.join('.')}: ${item.msg}`).join('; '));
    this.name = 'RequestValidationError';
  }
}

/** 404 for a deployment that does not exist in the caller's workspace. */
export const deploymentNotFound = (deploymentId: string): HttpError =>
  new HttpError(404, `Deployment ${deploymentId} not found`);

/** 404 for a revision that does not exist under the given deployment. */
export const revisionNotFound = (deploymentId: string, revisionId: string): HttpError =>
  new HttpError(404, `Revision ${revisionId} not found in deployment ${deploymentId}`);
