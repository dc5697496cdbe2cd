/**
 * The Approvals page, for the school's admins (require-admin.ts): the Ask an admin requests waiting
 * for a decision (accounts/approval-requests.ts), each approved (all or some of its scopes, for a
 * number of days) or denied with `…/approvals/decide`, with a note; the same operation as
 * `school-auth approvals approve|deny` (role-ceilings.ts `decideApproval`), audited with the acting
 * admin's id. A decision answers with a redirect to the page; a refused one answers the page with why.
 */
import { z } from 'zod';
import { ticked } from '../interactions/forms.js';
import { DecisionRefused } from '../accounts/approval-requests.js';
import { sendPage } from '../pages/html.js';
import { APPROVAL_DAYS, approvalsPage } from './approvals-view.js';
import { decideApproval, type RoleOpsDeps } from './role-ceilings.js';
import { accountPath, type AccountContext, type AccountStep } from './signed-in.js';

/** The decision form. */
export const decideForm = z.object({
  csrf: z.string(),
  request: z.string().min(1).max(100),
  decision: z.enum(['approve', 'deny']),
  scope: ticked,
  days: z.enum(APPROVAL_DAYS).catch('30'),
  note: z.string().max(2000).optional(),
});

const DONE = {
  approved:
    'Approved. They are told on their next visit, and may allow those scopes when the app next connects.',
  denied: 'Denied. They are told on their next visit.',
} as const;

/** The page and its form. */
export function approvalsSteps(deps: RoleOpsDeps): {
  show: AccountStep;
  decide: AccountStep<{ form: z.infer<typeof decideForm> }>;
} {
  const answer = async (
    ctx: AccountContext,
    status: number,
    notice: { error?: string; done?: string } = {},
  ) => {
    const [pending, recent] = await Promise.all([deps.approvals.pending(), deps.approvals.recent(20)]);
    sendPage(
      ctx,
      status,
      approvalsPage({ account: ctx.state.account, csrf: ctx.state.csrf, pending, recent, ...notice }),
    );
  };
  return {
    show: async function showApprovals(ctx) {
      const what = typeof ctx.query.done === 'string' ? ctx.query.done : '';
      await answer(ctx, 200, Object.hasOwn(DONE, what) ? { done: DONE[what as keyof typeof DONE] } : {});
    },
    decide: async function decideRequest(ctx) {
      const { form, account, requestId } = ctx.state;
      const actor = { actor: account._id, requestId, ip: ctx.ip };
      const note = form.note ? { note: form.note } : {};
      try {
        await decideApproval(
          deps,
          form.request,
          form.decision === 'approve'
            ? { approve: form.scope, days: Number(form.days), ...note }
            : { deny: true, ...note },
          actor,
        );
      } catch (err) {
        if (err instanceof DecisionRefused) return answer(ctx, 409, { error: err.message });
        throw err;
      }
      ctx.status = 303;
      ctx.redirect(`${accountPath('approvals')}?done=${form.decision === 'approve' ? 'approved' : 'denied'}`);
    },
  };
}
