/** The All clients list's GET form (all-clients.ts reads it, all-clients-views.ts writes it back into the page). */
import { SCAN_CURSOR } from '@school/shared';
import { z } from 'zod';
import { LISTED_KINDS } from '../storage/client-listing.js';
import { optionalParam } from './list-parts.js';

/** The list's GET form; a value that does not read is absent here, and the page says so (all-clients.ts). */
export const clientsQuery = z.object({
  kind: optionalParam(z.enum(LISTED_KINDS)),
  never_used: optionalParam(z.literal('1')),
  idle_days: optionalParam(z.coerce.number().int().min(1).max(3650)),
  after: optionalParam(z.string().regex(SCAN_CURSOR)),
  deleted: optionalParam(z.string().max(2000)),
});
