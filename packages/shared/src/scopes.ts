/**
 * The single source of the platform's OAuth scopes.
 *
 * docs/contract.md lists 38 scopes: the three OpenID Connect scopes and 35 API scopes, one per area and access
 * level. The API scopes are derived from {@link AREAS}, so an area, its path segment
 * (`/api/v1/<area>`), its scopes and its documentation can never disagree. Both services read this
 * module: the auth server for discovery and the consent page, the resource API for routes, scope
 * checks, its protected-resource metadata and OpenAPI document.
 */

/**
 * The kinds of school data a scope reaches, most sensitive first, with the heading the pages show:
 * what the consent page, Connected apps and the Access register group scopes under. Every area and
 * every OpenID Connect scope is in exactly one (docs/decisions.md says why each is where it is).
 */
export const DATA_CATEGORIES = {
  students: 'Students’ records',
  people: 'Members, staff and visitors',
  payments: 'Orders and payments',
  content: 'School content',
  account: 'Sign-in and own account',
} as const;

/** One data category's name. */
export type DataCategory = keyof typeof DATA_CATEGORIES;

/** The categories in the order the pages list them. */
export const DATA_CATEGORY_NAMES = Object.keys(DATA_CATEGORIES) as DataCategory[];

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
  /** The kind of data it holds ({@link DATA_CATEGORIES}). */
  readonly category: DataCategory;
}

/** The twenty areas of docs/contract.md, in its order, with exactly the access levels it names. */
export const AREAS = [
  { name: 'courses', title: 'courses', access: ['read', 'write'], category: 'content' },
  { name: 'students', title: 'students', access: ['read', 'write'], category: 'students' },
  { name: 'members', title: 'members', access: ['read', 'write'], category: 'people' },
  { name: 'analytics', title: 'analytics', access: ['read'], category: 'payments' },
  { name: 'curriculum', title: 'curriculum', access: ['read', 'write'], category: 'content' },
  { name: 'orders', title: 'orders', access: ['read'], category: 'payments' },
  { name: 'school', title: 'school', access: ['read', 'write'], category: 'content' },
  { name: 'appearance', title: 'appearance', access: ['read', 'write'], category: 'content' },
  { name: 'events', title: 'events', access: ['read', 'write'], category: 'content' },
  { name: 'membership_plans', title: 'membership plans', access: ['read', 'write'], category: 'payments' },
  { name: 'coupons', title: 'coupons', access: ['read', 'write'], category: 'payments' },
  { name: 'posts', title: 'posts', access: ['read', 'write'], category: 'content' },
  { name: 'subscriptions', title: 'subscriptions', access: ['read', 'write'], category: 'payments' },
  { name: 'digital_products', title: 'digital products', access: ['read', 'write'], category: 'content' },
  { name: 'comments', title: 'comments', access: ['read'], category: 'students' },
  { name: 'lecturers', title: 'lecturers', access: ['read', 'write'], category: 'people' },
  { name: 'storage', title: 'storage', access: ['write'], category: 'content' },
  { name: 'forms', title: 'forms', access: ['read'], category: 'people' },
  { name: 'pages', title: 'pages', access: ['read', 'write'], category: 'content' },
  { name: 'account', title: 'account', access: ['read', 'write'], category: 'account' },
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
  /** The kind of data it reaches: its area's, and `account` for the OpenID Connect scopes. */
  readonly category: DataCategory;
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
    category: area.category,
  })),
);

/** Every scope of docs/contract.md: the OpenID Connect scopes first, then the API scopes. */
export const ALL_SCOPES: readonly ScopeDefinition[] = [
  ...Object.entries(OIDC_SCOPES).map(([name, description]) => ({
    name,
    description,
    consentText: oidcConsentText[name as keyof typeof OIDC_SCOPES],
    changesData: false,
    category: 'account' as const,
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

/** Scopes under one data category's heading. */
export interface CategoryGroup {
  category: DataCategory;
  /** The heading, e.g. `Students’ records`. */
  title: string;
  /** The scopes given that fall under it, in the order given. */
  scopes: string[];
}

/**
 * `scopes` grouped under their data categories, in the categories' order, empty ones left out. A
 * name that is no scope of docs/contract.md grants nothing and is in no group.
 */
export function scopesByCategory(scopes: readonly string[]): CategoryGroup[] {
  return DATA_CATEGORY_NAMES.flatMap((category) => {
    const under = scopes.filter((s) => findScope(s)?.category === category);
    return under.length ? [{ category, title: DATA_CATEGORIES[category], scopes: under }] : [];
  });
}
