/**
 * Routes of export destinations under `/api/v1/bulk-exports/destinations`. Creation and credential rotation both
 * validate against the bucket before anything is stored.
 */
import { Hono, type MiddlewareHandler } from 'hono';
import { HttpError } from '../../errors';
import { REPLAYED_HEADER, idempotencyKeyOf, type IdempotencyKeys } from '../../idempotency';
import type { PlatformEnv } from '../../platform-env';
import { RequestValidator, readJsonBody } from '../../validation';
import type { S3ClientLimits } from '../destinations/s3';
import type { DestinationStore } from '../destinations/store';
import { checkDestinationConfig, validateDestination } from '../destinations/validate';
import { DestinationCreateBody, DestinationCredentialsBody } from '../request-bodies';

/** What the destination routes use. */
export interface DestinationRouteDeps {
  /** Authenticates a request and sets its principal. */
  readonly auth: MiddlewareHandler<PlatformEnv>;
  /** The destinations table. */
  readonly destinations: DestinationStore;
  /** Network limits of the validation requests. */
  readonly s3Limits?: S3ClientLimits;
  /** The `Idempotency-Key`s of creates. */
  readonly idempotencyKeys: IdempotencyKeys;
}

/** The destination routes, each behind the auth middleware. */
export function destinationRoutes({ auth, destinations, s3Limits, idempotencyKeys }: DestinationRouteDeps): Hono<PlatformEnv> {
  const app = new Hono<PlatformEnv>();

  app.post('/bulk-exports/destinations', auth, async (c) => {
    const validator = new RequestValidator();
    const raw = await readJsonBody(c);
    const body = validator.parse(DestinationCreateBody, raw, ['body']);
    if (body) checkDestinationConfig(validator, body.config);
    validator.throwIfFailed();
    const credentials = body!.credentials ?? null;
    const tenantId = c.get('principal').tenantId;
    const { object, replayed } = await idempotencyKeys.create(tenantId, idempotencyKeyOf(c), {
      // credentials are part of the body: a create with other credentials is a new destination, not the old one
      body: raw,
      live: (id) => destinations.get(tenantId, id),
      create: async () => {
        await validateDestination(body!.config, credentials, s3Limits);
        return destinations.create(tenantId, { display_name: body!.display_name, config: body!.config, credentials });
      },
      idOf: (destination) => destination.id,
    });
    if (replayed) c.header(REPLAYED_HEADER, 'true');
    return c.json(object, 201);
  });

  app.get('/bulk-exports/destinations', auth, (c) => c.json(destinations.list(c.get('principal').tenantId)));

  app.get('/bulk-exports/destinations/:id', auth, (c) => {
    const validator = new RequestValidator();
    const id = validator.uuidPath('id', c.req.param('id'));
    validator.throwIfFailed();
    const destination = destinations.get(c.get('principal').tenantId, id);
    if (!destination) throw new HttpError(404, `Bulk export destination ${id} not found`);
    return c.json(destination);
  });

  app.patch('/bulk-exports/destinations/:id', auth, async (c) => {
    const validator = new RequestValidator();
    const id = validator.uuidPath('id', c.req.param('id'));
    const body = validator.parse(DestinationCredentialsBody, await readJsonBody(c), ['body']);
    validator.throwIfFailed();
    const destination = destinations.get(c.get('principal').tenantId, id);
    if (!destination) throw new HttpError(404, `Bulk export destination ${id} not found`);
    await validateDestination(destination.config, body!.credentials, s3Limits);
    return c.json(destinations.updateCredentials(id, body!.credentials));
  });

  return app;
}
