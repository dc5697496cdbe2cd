/**
 * Each kind of audit event in plain words, as the Activity page and `school-auth activity` say it to
 * a school admin who has never heard of OAuth. A new event type must add its words here (the record
 * type makes the build fail until it does).
 */
import type { AuditEvent, AuditEventType } from './audit-log.js';

/** The words of each event type. */
export const EVENT_WORDS: Record<AuditEventType, string> = {
  client_registered: 'An app registered itself',
  client_deleted: 'An app was deleted',
  consent_granted: 'Access allowed to an app',
  consent_denied: 'Access denied to an app',
  login_succeeded: 'Signed in',
  login_failed: 'Sign-in failed (wrong email or password)',
  login_locked: 'Sign-in refused: too many failures',
  login_attack_suspected: 'Many failed sign-ins for one account (a possible attack)',
  tokens_issued: 'An app received access',
  refresh_token_reuse: 'An app’s old token was used again (it may have been copied)',
  refresh_token_reuse_allowed: 'An app’s replaced token was used again by the same copy of the app',
  code_replay: 'A sign-in code was used twice (it may have been stolen)',
  token_revoked: 'An app gave up a token',
  grant_revoked: 'Access of an app was taken back',
  grant_narrowed: 'Scopes an app did not use were taken back',
  grant_shortened: 'Access of an app shortened to end with the term (term review)',
  grant_kept: 'Access of an app kept past the end of the term (term review)',
  rate_limited: 'Too many requests from one address',
  signed_out: 'Signed out',
  password_changed: 'Password changed',
  sessions_ended: 'Signed out everywhere',
  account_created: 'Staff account created',
  account_unlocked: 'Account unlocked',
  password_reset: 'Password reset by an admin',
  account_disabled: 'Account disabled: it cannot sign in, its apps lost their access',
  account_enabled: 'Account enabled again',
  account_removed: 'Account removed, with its apps’ access',
  role_changed: 'Role changed',
  role_created: 'Role added',
  role_ceiling_changed: 'What a role may allow apps was changed',
  role_removed: 'Role removed',
  approval_requested: 'Someone asked an admin to approve an app’s access',
  approval_granted: 'An admin approved an app’s access for someone',
  approval_denied: 'An admin denied an app’s access for someone',
  passkey_registered: 'Passkey added',
  passkey_removed: 'Passkey removed',
  passkey_refused: 'A passkey was refused (its sign-in or registration could not be verified)',
  recovery_codes_generated: 'New recovery codes made',
  recovery_codes_removed: 'Recovery codes removed by an admin',
  factor_confirmed: 'Confirmed it is them (passkey or password) before changing passkeys or recovery codes',
  recovery_code_used: 'Signed in with a recovery code',
  password_sign_in_refused: 'Sign-in with a password refused: switched off for this account',
  password_sign_in_switched: 'Password sign-in switched on or off by an admin',
  device_pairing_requested: 'A device asked to be paired (waiting for someone to enter its code)',
  device_pairing_shown: 'A device pairing code was entered and its request shown',
  device_pairing_approved: 'A device was paired: access allowed',
  device_pairing_denied: 'A device pairing was denied',
  device_pairing_expired: 'A device pairing code expired before it was approved',
  app_reviewed: 'The school allowed or blocked an app',
  app_review_requested: 'Someone asked the admins to review an app',
  audit_summary: 'Many events of one kind from one address, counted in one entry',
};

/** The words of `event`; a summary also says which kind of event it counted, and how many. */
export function eventWords(event: Pick<AuditEvent, 'type' | 'details'>): string {
  const words = EVENT_WORDS[event.type] ?? event.type;
  if (event.type !== 'audit_summary') return words;
  const { type, count } = event.details ?? {};
  return `${words}: ${String(type)} ×${String(count)}`;
}
