/**
 * The single source of the platform's OAuth scopes.
 *
 * docs/contract.md lists 38 scopes: the three OpenID Connect scopes and 35 API scopes, one per area and access
 * level. The API scopes are derived from {@link AREAS}, so an area, its path segment
 * (`/api/v1/<area>`), its scopes and its documentation can never disagree. Both services read this
 * module: the auth server for discovery and the consent page, the resource API for routes, scope
 * checks, its protected-resource metadata and OpenAPI document.
 */

/** Access levels a scope can grant on an area. */
export type Access = 'read' | 'write';

/** One area of the platform: its name is its scope prefix and its path segment. */
export interface AreaDefinition {
  /** Scope prefix and path segment, e.g. `membership_plans`. */
  readonly name: string;
  /** Human words for the area, e.g. `membership plans`, used on the consent page and in docs. */
  readonly title: string;
  /** The access levels docs/contract.md grants scopes for. */
  readonly access: readonly Access[];
}

/** The twenty areas of docs/contract.md, in its order, with exactly the access levels it names. */
export const AREAS = [
  { name: 'courses', title: 'courses', access: ['read', 'write'] },
  { name: 'students', title: 'students', access: ['read', 'write'] },
  { name: 'members', title: 'members', access: ['read', 'write'] },
  { name: 'analytics', title: 'analytics', access: ['read'] },
  { name: 'curriculum', title: 'curriculum', access: ['read', 'write'] },
  { name: 'orders', title: 'orders', access: ['read'] },
  { name: 'school', title: 'school', access: ['read', 'write'] },
  { name: 'appearance', title: 'appearance', access: ['read', 'write'] },
  { name: 'events', title: 'events', access: ['read', 'write'] },
  { name: 'membership_plans', title: 'membership plans', access: ['read', 'write'] },
  { name: 'coupons', title: 'coupons', access: ['read', 'write'] },
  { name: 'posts', title: 'posts', access: ['read', 'write'] },
  { name: 'subscriptions', title: 'subscriptions', access: ['read', 'write'] },
  { name: 'digital_products', title: 'digital products', access: ['read', 'write'] },
  { name: 'comments', title: 'comments', access: ['read'] },
  { name: 'lecturers', title: 'lecturers', access: ['read', 'write'] },
  { name: 'storage', title: 'storage', access: ['write'] },
  { name: 'forms', title: 'forms', access: ['read'] },
  { name: 'pages', title: 'pages', access: ['read', 'write'] },
  { name: 'account', title: 'account', access: ['read', 'write'] },
] as const satisfies readonly AreaDefinition[];

/** The name of one area. */
export type AreaName = (typeof AREAS)[number]['name'];

/** The OpenID Connect scopes of docs/contract.md with the text docs/contract.md gives them. */
export const OIDC_SCOPES = {
  openid: 'OpenID Connect authentication',
  profile: 'Basic profile information',
  email: 'Email address',
} as const;

/** One scope with its docs/contract.md description and, for consent, words a school admin understands. */
export interface ScopeDefinition {
  readonly name: string;
  /** The description docs/contract.md gives, e.g. `Read access to courses`. */
  readonly description: string;
  /** What approving it lets the app do, in plain words for the consent page. */
  readonly consentText: string;
  /** True when it lets the app create, change or delete data (the consent page flags these). */
  readonly changesData: boolean;
}

const consentVerb: Record<Access, string> = {
  read: 'See your school’s',
  write: 'Create, change and delete your school’s',
};

const oidcConsentText: Record<keyof typeof OIDC_SCOPES, string> = {
  openid: 'Confirm who you are (sign you in)',
  profile: 'See your name',
  email: 'See your email address',
};

/** The 35 API scopes, `<area>:<access>`, in the contract's order. */
export const API_SCOPES: readonly ScopeDefinition[] = AREAS.flatMap((area) =>
  area.access.map((access) => ({
    name: `${area.name}:${access}`,
    description: `${access === 'read' ? 'Read' : 'Write'} access to ${area.title}`,
    consentText:
      area.name === 'storage'
        ? 'Upload files to your school’s storage'
        : `${consentVerb[access]} ${area.title}`,
    changesData: access === 'write',
  })),
);

/** Every scope of docs/contract.md: the OpenID Connect scopes first, then the API scopes. */
export const ALL_SCOPES: readonly ScopeDefinition[] = [
  ...Object.entries(OIDC_SCOPES).map(([name, description]) => ({
    name,
    description,
    consentText: oidcConsentText[name as keyof typeof OIDC_SCOPES],
    changesData: false,
  })),
  ...API_SCOPES,
];

/** Scope names only, for metadata documents. */
export const API_SCOPE_NAMES: readonly string[] = API_SCOPES.map((s) => s.name);
/** All 38 scope names, for the authorization server's `scopes_supported`. */
export const ALL_SCOPE_NAMES: readonly string[] = ALL_SCOPES.map((s) => s.name);

/**
 * The baseline: the API scopes the protected-resource metadata lists in `scopes_supported`, which is
 * what an MCP client asks for before any challenge has named a scope (MCP authorization, 2026-07-28).
 * Reading who is signed in and which school this is: enough for an agent to confirm its connection,
 * nothing about anyone else and nothing that changes data. Every other scope is asked for when an
 * operation's 401/403 challenge names it (docs/decisions.md says why these two).
 */
export const BASELINE_SCOPE_NAMES: readonly string[] = API_SCOPE_NAMES.filter(
  (name) => name === 'school:read' || name === 'account:read',
);

const byName = new Map(ALL_SCOPES.map((s) => [s.name, s]));

/** Looks a scope up by name; `undefined` for anything docs/contract.md does not define. */
export function findScope(name: string): ScopeDefinition | undefined {
  return byName.get(name);
}
