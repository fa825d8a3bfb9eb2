/**
 * Finding a cron on its agent server, which has no read of one cron by id: by searching the deployment's crons (of
 * its thread, when it has one), and, for what a create made, by the create key its metadata carries.
 */
import type { AgentServerClient } from '../../../api/agent-server';
import type { CronAnswer } from '../../../api/schemas/agent-server-crons';
import { tryUntilAnswered, type LookupOptions, type LookupResult, type UnansweredCreate } from '../shared/unanswered-create';
import { CREATE_KEY_FIELD } from './body';

/** Crons asked for per search request. */
const PAGE = 100;

/** Options of a search request. */
type SearchOptions = Partial<LookupOptions>;

/** The cron `cronId` among the deployment's crons (those of `threadId` when given), or null when there is none. */
export async function findCron(client: AgentServerClient, cronId: string, threadId: string | null, o: SearchOptions = {}): Promise<CronAnswer | null> {
  for (let offset = 0; ; offset += PAGE) {
    const page = await client.crons.search({ ...(threadId ? { thread_id: threadId } : {}), limit: PAGE, offset }, o);
    const found = page.find((cron) => cron.cron_id === cronId);
    if (found) return found;
    if (page.length < PAGE) return null;
  }
}

/**
 * The cron a create under `key` made, or null. Its metadata is checked here too: an agent server older than the
 * search by metadata answers every cron.
 */
export async function findCreated(client: AgentServerClient, key: string, threadId: string | null, o: SearchOptions = {}): Promise<CronAnswer | null> {
  const query = { metadata: { [CREATE_KEY_FIELD]: key }, ...(threadId ? { thread_id: threadId } : {}) };
  for (let offset = 0; ; offset += PAGE) {
    const page = await client.crons.search({ ...query, limit: PAGE, offset }, o);
    const found = page.find((cron) => cron.metadata?.[CREATE_KEY_FIELD] === key);
    if (found) return found;
    if (page.length < PAGE) return null;
  }
}

/** Looks for what an unanswered create under `key` made, until found or the look-ups' time is up. */
export function createdUnanswered(client: AgentServerClient, key: string, threadId: string | null, sent: UnansweredCreate): Promise<LookupResult<CronAnswer>> {
  return tryUntilAnswered(sent, (o) => findCreated(client, key, threadId, o));
}
