/**
 * Turns oidc-provider's events into audit events: registrations, token issuance, code replay and
 * refresh-token reuse, revocations, device pairing requests and codes polled past their life. Consent, login and rate-limit events are recorded where they
 * happen (interactions/login.ts and consent.ts, http/rate-limit.ts).
 */
import type { KoaContextWithOIDC, Provider } from 'oidc-provider';
import type { AuditLog } from './audit-log.js';

const common = (ctx: KoaContextWithOIDC) => ({
  requestId: ctx.state?.requestId as string | undefined,
  ip: ctx.ip,
  clientId: ctx.oidc?.client?.clientId,
});

/** Subscribes `audit` to the provider's security-relevant events. */
export function auditProviderEvents(provider: Provider, audit: AuditLog): void {
  provider.on(
    'registration_create.success',
    (ctx: KoaContextWithOIDC, client: { clientId: string; clientName?: string }) => {
      void audit.record('client_registered', {
        ...common(ctx),
        clientId: client.clientId,
        details: { client_name: client.clientName },
      });
    },
  );
  provider.on('grant.success', (ctx: KoaContextWithOIDC) => {
    const { entities, params } = ctx.oidc;
    void audit.record('tokens_issued', {
      ...common(ctx),
      accountId: entities.AccessToken?.accountId ?? entities.Account?.accountId,
      details: {
        grant_type: params?.grant_type,
        scope: entities.AccessToken?.scope,
        aud: entities.AccessToken?.aud,
        refresh_token: Boolean(entities.RefreshToken || entities.RotatedRefreshToken),
      },
    });
  });
  provider.on('device_authorization.success', (ctx: KoaContextWithOIDC) => {
    void audit.record('device_pairing_requested', {
      ...common(ctx),
      details: { scope: ctx.oidc.params?.scope, resource: ctx.oidc.params?.resource },
    });
  });
  provider.on('grant.error', (ctx: KoaContextWithOIDC, err: { error?: string; error_detail?: string }) => {
    const detail = err.error_detail ?? '';
    // The device polled past its code's life: nobody approved it in time.
    if (err.error === 'expired_token')
      void audit.record('device_pairing_expired', { ...common(ctx), details: { by: 'device' } });
    if (/refresh token already used/.test(detail))
      void audit.record('refresh_token_reuse', { ...common(ctx), details: { detail } });
    else if (/already (consumed|used)/.test(detail))
      void audit.record('code_replay', { ...common(ctx), details: { detail } });
  });
  // Revocation emits no success event: look at what the route found once it has answered.
  provider.use(async (ctx, next) => {
    await next();
    const oidc = (ctx as unknown as KoaContextWithOIDC).oidc;
    if (oidc?.route !== 'revocation' || ctx.status !== 200) return;
    const token = oidc.entities.AccessToken ?? oidc.entities.RefreshToken;
    if (token) {
      void audit.record('token_revoked', {
        ...common(ctx as unknown as KoaContextWithOIDC),
        accountId: token.accountId,
        details: { kind: token.kind },
      });
    }
  });
  provider.on('grant.revoked', (ctx: KoaContextWithOIDC, grantId: string) => {
    void audit.record('grant_revoked', {
      ...common(ctx),
      details: { grant_id: grantId, route: ctx.oidc?.route },
    });
  });
}
