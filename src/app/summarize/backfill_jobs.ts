/**
 * How many conversations a backfill catches up at once by default, apart
 * from the backfill itself so that the command line can name it without
 * loading the flow.
 *
 * @module
 */

/**
 * Conversations caught up at once by default: enough to hide the latency of
 * a hosted model, few enough not to meet its rate limit at once (a 429 is
 * retried anyway). A local server that answers one request at a time queues
 * the rest.
 */
export const DEFAULT_JOBS = 4;
