/**
 * Tells a person, once, on their next visit to the account pages, what an admin decided about their
 * Ask an admin requests (accounts/approval-requests.ts): a step in front of every page, which leaves
 * the sentences on the signed-in account for the page's heading (views.ts `accountPage`).
 */
import type { ApprovalRequest, ApprovalStore } from '../accounts/approval-requests.js';
import type { AccountStep } from './signed-in.js';
import { when } from './views.js';

/** One decision in a sentence. */
export function decisionWords(r: ApprovalRequest): string {
  const app = r.clientName || r.clientId;
  const note = r.note ? ` Their note: “${r.note}”` : '';
  if (r.status === 'approved')
    return `An admin approved your request for ${app}: you may allow it ${(r.approvedScopes ?? []).join(', ')} until ${when(r.approvedUntil)}. Connect the app again to use it.${note}`;
  return `An admin denied your request for ${app} (${r.scopes.join(', ')}).${note}`;
}

/** The step: the person's untold decisions, marked told, as notices on `ctx.state.account`. */
export function tellDecisions(approvals: ApprovalStore): AccountStep {
  return async function tellDecisions(ctx, next) {
    const untold = await approvals.takeUntold(ctx.state.account._id);
    if (untold.length) ctx.state.account = { ...ctx.state.account, notices: untold.map(decisionWords) };
    await next();
  };
}
