/**
 * Caps on what open registration stores (SECURITY.md "Sizes and caps"): the auth server enforces
 * them, the resource API's `/openapi.json` documents them. Every member lands in Redis, and the name
 * on the consent page and in the audit log, so an unbounded registration was a cheap way to fill both.
 */
export const REGISTRATION_CAPS = {
  /** Bytes of the whole registration request body (over it: 413). */
  body: 16 * 1024,
  /** Characters of `client_name`, the one member a person reads. */
  clientName: 100,
  /** Characters of any other string member (URIs included). */
  string: 2000,
  /** Entries of `redirect_uris`. */
  redirectUris: 10,
  /** Entries of any other list member (contacts, grant types, ...). */
  list: 10,
} as const;
