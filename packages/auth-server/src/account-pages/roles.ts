/**
 * The Roles page, for the school's admins (require-admin.ts): each role's ceiling, changed with
 * `…/roles/ceiling` (lowering one narrows its holders' live grants at once: role-ceilings.ts), a role
 * added with `…/roles/create` and removed, when nobody holds it, with `…/roles/remove`. The same
 * operations as `school-auth roles …`, audited with the acting admin's id. A form that changed
 * something answers with a redirect to the page (a reload repeats nothing); a refused one answers the
 * page with the problem.
 */
import { z } from 'zod';
import { ticked } from '../interactions/forms.js';
import { RoleRefused } from '../accounts/roles.js';
import { sendPage } from '../pages/html.js';
import { createRole, removeRole, setRoleCeiling, type Actor, type RoleOpsDeps } from './role-ceilings.js';
import { accountPath, type AccountContext, type AccountStep } from './signed-in.js';
import { rolesPage } from './roles-view.js';

const roleName = z.string().min(1).max(100);

export const createRoleForm = z.object({
  csrf: z.string(),
  name: z.string().max(100),
  label: z.string().max(200),
});
export const ceilingForm = z.object({ csrf: z.string(), role: roleName, scope: ticked });
export const removeRoleForm = z.object({ csrf: z.string(), role: roleName });

const DONE = {
  created: 'The role was added. Tick what it may allow, then save.',
  ceiling:
    'Saved. What the role may no longer allow was taken back from its holders’ apps; their current access tokens ended.',
  removed: 'The role was removed.',
} as const;

/** The page and its forms. */
export function rolesSteps(deps: RoleOpsDeps): {
  show: AccountStep;
  create: AccountStep<{ form: z.infer<typeof createRoleForm> }>;
  ceiling: AccountStep<{ form: z.infer<typeof ceilingForm> }>;
  remove: AccountStep<{ form: z.infer<typeof removeRoleForm> }>;
} {
  const answer = async (
    ctx: AccountContext,
    status: number,
    notice: { error?: string; done?: string; typed?: { name: string; label: string } } = {},
  ) => {
    const [roles, accounts] = await Promise.all([deps.roles.list(), deps.accounts.list()]);
    const listed = roles.map((r) => ({ ...r, holders: accounts.filter((a) => a.role === r.name).length }));
    sendPage(
      ctx,
      status,
      rolesPage({ account: ctx.state.account, csrf: ctx.state.csrf, roles: listed, ...notice }),
    );
  };
  const actorOf = (ctx: AccountContext): Actor => ({
    actor: ctx.state.account._id,
    requestId: ctx.state.requestId,
    ip: ctx.ip,
  });
  const done = (ctx: AccountContext, what: keyof typeof DONE) => {
    ctx.status = 303;
    ctx.redirect(`${accountPath('roles')}?done=${what}`);
  };
  /** Runs `work`; a refusal answers the page with its words (409), nothing changed. */
  const refusable = async (
    ctx: AccountContext,
    work: () => Promise<unknown>,
    typed?: { name: string; label: string },
  ) => {
    try {
      await work();
      return true;
    } catch (err) {
      if (!(err instanceof RoleRefused)) throw err;
      await answer(ctx, 409, { error: err.message, ...(typed ? { typed } : {}) });
      return false;
    }
  };

  return {
    show: async function showRoles(ctx) {
      const what = typeof ctx.query.done === 'string' ? ctx.query.done : '';
      await answer(ctx, 200, Object.hasOwn(DONE, what) ? { done: DONE[what as keyof typeof DONE] } : {});
    },
    create: async function createRoleStep(ctx) {
      const { name, label } = ctx.state.form;
      const ok = await refusable(
        ctx,
        () => createRole(deps, { name: name.trim(), label, ceiling: [] }, actorOf(ctx)),
        { name, label },
      );
      if (ok) done(ctx, 'created');
    },
    ceiling: async function setCeilingStep(ctx) {
      const { role, scope } = ctx.state.form;
      let found = true;
      const ok = await refusable(ctx, async () => {
        found = Boolean(await setRoleCeiling(deps, role, scope, actorOf(ctx)));
      });
      if (!ok) return;
      if (!found) return answer(ctx, 404, { error: 'There is no such role any more.' });
      done(ctx, 'ceiling');
    },
    remove: async function removeRoleStep(ctx) {
      let found = true;
      const ok = await refusable(ctx, async () => {
        found = await removeRole(deps, ctx.state.form.role, actorOf(ctx));
      });
      if (!ok) return;
      if (!found) return answer(ctx, 404, { error: 'There is no such role any more.' });
      done(ctx, 'removed');
    },
  };
}
