/**
 * The crons of an agent server client (`AgentServerClient.crons`): runs on a schedule, made, changed, searched,
 * counted and deleted as the LangGraph agent server API and its SDKs do (`/runs/crons...`).
 */
import { z } from 'zod';
import type { HttpTransport } from './http';
import type { CallOptions } from './agent-server-options';
import { CronAnswer, type CronCount, type CronCreate, type CronSearch, type CronUpdate } from './schemas/agent-server-crons';

/** Options of a cron call. */
export interface CronCallOptions extends CallOptions {
  /** `false`: never retry (look-ups that retry as a whole). @default by method */
  readonly retry?: boolean;
}

/** Options of a create: those of any call, and the key a server that honours it answers a repeat with. */
export interface CronCreateOptions extends CronCallOptions {
  /** Sent as `Idempotency-Key` (a server may ignore it). @default none */
  readonly idempotencyKey?: string;
}

const segment = (id: string): string => encodeURIComponent(id);

/** The cron calls over `transport`. */
export function cronCalls(transport: HttpTransport) {
  return {
    /** `POST /runs/crons` (stateless) or `POST /threads/{id}/runs/crons` when `threadId` is given. */
    create: (threadId: string | null, body: CronCreate, o: CronCreateOptions = {}) =>
      transport.request({
        method: 'POST',
        path: threadId === null ? '/runs/crons' : `/threads/${segment(threadId)}/runs/crons`,
        body,
        schema: CronAnswer,
        ...o,
      }),
    /** `PATCH /runs/crons/{id}`: the fields given change, the others keep their values. */
    update: (cronId: string, body: CronUpdate, o: CronCallOptions = {}) =>
      transport.request({ method: 'PATCH', path: `/runs/crons/${segment(cronId)}`, body, schema: CronAnswer, ...o }),
    /** `DELETE /runs/crons/{id}`. */
    delete: (cronId: string, o: CronCallOptions = {}) =>
      transport.request<void>({ method: 'DELETE', path: `/runs/crons/${segment(cronId)}`, ...o }),
    /** `POST /runs/crons/search`: a page of the crons that match, oldest first. */
    search: (query: CronSearch = {}, o: CronCallOptions = {}) =>
      transport.request({ method: 'POST', path: '/runs/crons/search', body: query, schema: z.array(CronAnswer), retry: true, ...o }),
    /** `POST /runs/crons/count`: how many crons match. */
    count: (query: CronCount = {}, o: CronCallOptions = {}) =>
      transport.request({ method: 'POST', path: '/runs/crons/count', body: query, schema: z.number().int(), retry: true, ...o }),
  };
}

/** The cron calls of a client. */
export type CronCalls = ReturnType<typeof cronCalls>;
