/** oidc-provider's internal per-instance store (no public API reaches the grant handlers). */
declare module 'oidc-provider/lib/helpers/weak_cache.js' {
  const instance: (provider: object) => unknown;
  export default instance;
}
