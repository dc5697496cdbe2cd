/**
 * The forms the login and consent pages post, as zod schemas (checked by the `checkForm` step).
 *
 * Only the CSRF token can make a form fail: a missing or malformed one refuses the submission (403).
 * A missing or malformed email or password reads as empty and gets the generic login error, like a
 * wrong password, and overlong values are cut rather than refused, so no field tells an attacker
 * more than a wrong password does.
 */
import { z } from 'zod';
import { DURATION_ANSWERS } from './access-duration.js';

/** Text as sent, cut to `max` characters; empty when it is missing or not a single value. */
const text = (max: number) =>
  z
    .string()
    .catch('')
    .transform((s) => s.slice(0, max));

/** The interaction's CSRF token (pages/csrf.ts), in every form. */
const csrf = z.string();

/** The sign-in form (`POST /oauth/interaction/<uid>/login`). */
export const loginForm = z.object({ email: text(320), password: text(1024), csrf });
export type LoginForm = z.infer<typeof loginForm>;

/** The passkey sign-in form (`…/passkey`): the WebAuthn answer as JSON, made by the page's script. */
export const passkeyLoginForm = z.object({ response: text(12_000), csrf });
export type PasskeyLoginForm = z.infer<typeof passkeyLoginForm>;

/** The recovery-code sign-in form (`…/recovery`). */
export const recoveryLoginForm = z.object({ email: text(320), code: text(100), csrf });
export type RecoveryLoginForm = z.infer<typeof recoveryLoginForm>;

/**
 * The consent forms: the decision is the form's action (`…/confirm` allows, `…/abort` denies), so
 * Deny and "Not you?" carry only their CSRF token.
 */
export const consentForm = z.object({ csrf });
export type ConsentForm = z.infer<typeof consentForm>;

/**
 * A field sent once or several times (ticked checkboxes) as a list of at most 100 values of at most
 * 100 characters; anything else reads as nothing ticked. The form parser (co-body's qs) gives more
 * than 20 repeats as an object keyed "0", "1", …, read here in that order. What the list may name is
 * decided against the request (consent.ts), never here.
 */
export const ticked = z
  .union([
    z.string().transform((s) => [s]),
    z.array(z.string()),
    z.record(z.string(), z.string()).transform((repeats) => Object.values(repeats)),
  ])
  .catch([])
  .transform((list) => list.slice(0, 100).map((s) => s.slice(0, 100)));

/**
 * The Allow form (`…/confirm`): the scopes left ticked and how long access lasts. A duration that is
 * not one of the answers reads as the shortest (a form never gets more than the page offered); a
 * missing one stays missing, read as the page's preselected choice (access-duration.ts `chosenEnd`).
 */
export const allowForm = z.object({
  csrf,
  scope: ticked,
  duration: z.enum(DURATION_ANSWERS).optional().catch('hour'),
});
export type AllowForm = z.infer<typeof allowForm>;
