/** oidc-provider's internal per-instance store (no public API reaches the grant handlers). */
declare module 'oidc-provider/lib/helpers/weak_cache.js' {
  const instance: (provider: object) => unknown;
  export default instance;
}

/** oidc-provider's DPoP proof check: the request's proof (checked once, then remembered), or none. */
declare module 'oidc-provider/lib/helpers/validate_dpop.js' {
  const validateDpop: (
    provider: object,
    ctx: object,
    accessToken?: string,
  ) => Promise<{ thumbprint: string; jti: string; iat: number } | undefined>;
  export default validateDpop;
  /**
   * Records the proof's `jti` for `clientId` (oidc-provider's ReplayDetection model) and throws an
   * `ErrorClass` when it was recorded before.
   */
  export const checkDpopReplay: (
    provider: object,
    ctx: object,
    proof: { jti: string },
    clientId: string,
    ErrorClass: new (description: string) => Error,
  ) => Promise<void>;
}
