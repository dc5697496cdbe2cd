/**
 * The term review (admins only), while a term end is set (`SCHOOL_TERM_ENDS`): the rows of the Access
 * register (access-register.ts) whose access goes on after the term's access ends (the end "This
 * term" gives on the consent page, interactions/access-duration.ts), each with a checkbox, and one
 * action for those selected:
 *
 * - **Shorten**: each of that account's grants of that app that ends later is saved to end with the
 *   term (its `exp`, through oidc-provider's model, which refresh, introspection and every new token
 *   follow), and its access and refresh tokens that would outlive it get that end too
 *   (storage/grant-shortening.ts). Audited as `grant_shortened`.
 * - **End**: the Revoke of Connected apps (storage/account-grants.ts `endAccountAccess`): the grants and
 *   their tokens end at once, every API instance told. Audited as `grant_revoked`, `by: admin`.
 * - **Keep**: nothing changes; the decision is audited as `grant_kept`, with the end it keeps.
 *
 * A selection names an account and an app; one that no longer outlives the term (ended or shortened
 * meanwhile, or never listed) is left alone. The form is checked like every account form (CSRF,
 * Origin) and answered with a redirect, whose confirmation carries an HMAC of this session and what
 * was done, so a crafted link cannot make the page announce anything.
 */
import { z } from 'zod';
import type { AuditLog } from '../audit/audit-log.js';
import type { CsrfTokens } from '../pages/csrf.js';
import { sendPage } from '../pages/html.js';
import { accessEnds, type AccessCalendar } from '../interactions/access-duration.js';
import { accountGrants, endAccountAccess } from '../storage/account-grants.js';
import { shortenGrantTokens } from '../storage/grant-shortening.js';
import { accessRegister, type RegisterDeps, type RegisterRow } from './access-register.js';
import { accountPath, type AccountStep } from './signed-in.js';
import { termReviewView, type ReviewNotice } from './register-views.js';

/** Rows the review shows at most; the rest follow once these are dealt with. */
export const REVIEW_PAGE_SIZE = 200;

/** What the review does to the selected access. */
export const REVIEW_ACTIONS = ['shorten', 'end', 'keep'] as const;
type ReviewAction = (typeof REVIEW_ACTIONS)[number];

/** The review's form: the action, and the selected `<account id> <client id>` pairs. */
export const termReviewForm = z.object({
  csrf: z.string(),
  action: z.enum(REVIEW_ACTIONS),
  grant: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .transform((g) => (g === undefined ? [] : Array.isArray(g) ? g : [g]))
    .pipe(z.array(z.string().max(2200)).max(REVIEW_PAGE_SIZE)),
});

/** What the term review needs. */
export interface TermReviewDeps extends RegisterDeps {
  audit: AuditLog;
  calendar: AccessCalendar;
}

const PAST: Record<ReviewAction, string> = { shorten: 'Shortened', end: 'Ended', keep: 'Kept' };
const doneProof = (sessionUid: string, done: string) => `term-review:${sessionUid}:${done}`;

/** When the term's access ends now (Unix seconds), or undefined: no term set, or it is over. */
const termEndsAt = (calendar: AccessCalendar) => accessEnds('term', new Date(), calendar);

/** The rows that outlive `endsAt`, at most `limit` (and whether there are more). */
async function outliving(
  deps: RegisterDeps,
  endsAt: number,
  limit: number,
): Promise<{ rows: RegisterRow[]; more: boolean }> {
  const rows: RegisterRow[] = [];
  for await (const part of accessRegister(deps)) {
    for (const row of part.rows) {
      if (row.endsAt !== null && Date.parse(row.endsAt) / 1000 <= endsAt) continue;
      if (rows.length === limit) return { rows, more: true };
      rows.push(row);
    }
  }
  return { rows, more: false };
}

/** Shortens `accountId`'s grants of `clientId` that end after `endsAt` to end then. */
async function shorten(deps: RegisterDeps, accountId: string, clientId: string, endsAt: number) {
  const done = { grants: 0, accessTokens: 0, refreshTokens: 0 };
  for (const held of await accountGrants(deps.redis, deps.prefix, accountId)) {
    if (held.clientId !== clientId || (held.expiresAt !== undefined && held.expiresAt <= endsAt)) continue;
    const grant = await deps.provider.Grant.find(held.grantId);
    if (!grant || grant.accountId !== accountId || grant.clientId !== clientId) continue;
    grant.exp = endsAt;
    await grant.save();
    const tokens = await shortenGrantTokens(deps.redis, deps.prefix, held.grantId, endsAt);
    done.grants++;
    done.accessTokens += tokens.accessTokens;
    done.refreshTokens += tokens.refreshTokens;
  }
  return done;
}

/** The review page and its action. */
export function termReviewSteps(
  deps: TermReviewDeps,
  proofs: CsrfTokens,
): { show: AccountStep; act: AccountStep<{ form: z.infer<typeof termReviewForm> }> } {
  const page = async (
    ctx: Parameters<AccountStep>[0],
    status: number,
    notice: ReviewNotice,
  ): Promise<void> => {
    const endsAt = termEndsAt(deps.calendar);
    const { rows, more } =
      endsAt === undefined ? { rows: [], more: false } : await outliving(deps, endsAt, REVIEW_PAGE_SIZE);
    sendPage(
      ctx,
      status,
      termReviewView({
        account: ctx.state.account,
        csrf: ctx.state.csrf,
        termEnds: deps.calendar.termEnds,
        termEndsAt: endsAt,
        rows,
        more,
        notice,
      }),
    );
  };
  return {
    show: async function showTermReview(ctx) {
      const done = typeof ctx.query.done === 'string' ? ctx.query.done : undefined;
      const proven = done && proofs.verify(doneProof(ctx.state.sessionUid, done), ctx.query.proof);
      const [action, count] = proven ? done.split(':') : [];
      const notice =
        action && Object.hasOwn(PAST, action)
          ? {
              done: `${PAST[action as ReviewAction]}: ${count} ${count === '1' ? 'app’s access' : 'apps’ access'}.`,
            }
          : {};
      await page(ctx, 200, notice);
    },
    act: async function actOnTermReview(ctx) {
      const { account, form, requestId } = ctx.state;
      const endsAt = termEndsAt(deps.calendar);
      if (endsAt === undefined)
        return page(ctx, 409, {
          error: 'There is no term ahead to review access against: nothing was changed.',
        });
      if (!form.grant.length)
        return page(ctx, 400, { error: 'Select at least one app’s access first: nothing was changed.' });
      const { rows } = await outliving(deps, endsAt, Number.MAX_SAFE_INTEGER);
      const listed = new Map(rows.map((r) => [`${r.account.id} ${r.app.clientId}`, r]));
      const chosen = [...new Set(form.grant)].flatMap((g) => listed.get(g) ?? []);
      const by = { requestId, ip: ctx.ip };
      for (const row of chosen) {
        const target = { accountId: row.account.id, clientId: row.app.clientId };
        if (form.action === 'end') {
          const ended = await endAccountAccess(deps.redis, deps.prefix, target.accountId, target.clientId);
          void deps.audit.record('grant_revoked', {
            ...by,
            ...target,
            details: { by: 'admin', actor: account._id, review: 'term', ...ended },
          });
        } else if (form.action === 'shorten') {
          const done = await shorten(deps, target.accountId, target.clientId, endsAt);
          void deps.audit.record('grant_shortened', {
            ...by,
            ...target,
            details: { actor: account._id, ends: new Date(endsAt * 1000).toISOString(), ...done },
          });
        } else {
          void deps.audit.record('grant_kept', {
            ...by,
            ...target,
            details: {
              actor: account._id,
              ends: row.endsAt,
              term_ends: new Date(endsAt * 1000).toISOString(),
            },
          });
        }
      }
      const done = `${form.action}:${chosen.length}`;
      ctx.status = 303;
      ctx.redirect(
        `${accountPath('term-review')}?${new URLSearchParams({ done, proof: proofs.issue(doneProof(ctx.state.sessionUid, done)) }).toString()}`,
      );
    },
  };
}
