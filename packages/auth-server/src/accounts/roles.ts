/**
 * The school's roles as data (MongoDB `roles`): each account names one (`role` on the account), and
 * each role has a ceiling, the scopes a person in it may grant an app by themself. A role is added,
 * given a ceiling and removed by an admin (the Roles page, `school-auth roles …`), never in code;
 * only `admin` means more than its ceiling (the admins' pages, account-pages/require-admin.ts), so it
 * cannot be removed and its ceiling stays every scope.
 *
 * Seeded on start when missing: `admin` may grant any scope; `staff` every `:read` scope except
 * `orders:read` and `members:read`, and no scope that changes data. The OpenID Connect scopes
 * (`openid`, `profile`, `email`) only say who signed in, so every role may grant them whatever its
 * ceiling lists (docs/decisions.md).
 */
import { ALL_SCOPE_NAMES, API_SCOPES, OIDC_SCOPES, findScope } from '@school/shared';
import { Schema, type Connection, type Model } from 'mongoose';

/** A ceiling entry meaning every scope (the `admin` role's). */
export const ANY_SCOPE = '*';

/** The role whose holders use the admins' pages. */
export const ADMIN_ROLE = 'admin';

/** Scopes every role may grant: they only say who signed in. */
export const ALWAYS_GRANTABLE: readonly string[] = Object.keys(OIDC_SCOPES);

/** A role as stored. */
export interface RoleDocument {
  /** The role's name, as accounts name it: lower-case letters, digits and `-`. */
  _id: string;
  /** The role as the pages say it, e.g. "Teacher". */
  label: string;
  /** The scopes a person in this role may grant by themself ({@link ANY_SCOPE}: every scope). */
  ceiling: string[];
  createdAt: Date;
  updatedAt: Date;
}

/** A role as the pages and the command line show it. */
export interface Role {
  name: string;
  label: string;
  ceiling: string[];
}

const DEFAULT_ROLES: readonly Role[] = [
  { name: ADMIN_ROLE, label: 'Admin', ceiling: [ANY_SCOPE] },
  {
    name: 'staff',
    label: 'Staff',
    ceiling: API_SCOPES.filter(
      (s) => !s.changesData && s.name !== 'orders:read' && s.name !== 'members:read',
    ).map((s) => s.name),
  },
];

/** A role name's rule. */
export const ROLE_NAME = /^[a-z][a-z0-9-]{0,31}$/;

/** A refusal in plain words (a bad name, an unknown scope, a role in use). */
export class RoleRefused extends Error {}

function model(connection: Connection): Model<RoleDocument> {
  if (connection.models.Role) return connection.models.Role as Model<RoleDocument>;
  const schema = new Schema<RoleDocument>(
    {
      _id: { type: String, required: true },
      label: { type: String, required: true },
      ceiling: { type: [String], default: [] },
    },
    { collection: 'roles', timestamps: true, versionKey: false },
  );
  return connection.model('Role', schema) as unknown as Model<RoleDocument>;
}

/** Every scope of `ceiling` once, in the scope list's order; unknown names refused. */
export function checkedCeiling(ceiling: readonly string[]): string[] {
  const names = [...new Set(ceiling.map((s) => s.trim()).filter(Boolean))];
  if (names.includes(ANY_SCOPE)) return [ANY_SCOPE];
  const unknown = names.filter((s) => !findScope(s));
  if (unknown.length) throw new RoleRefused(`No such scope: ${unknown.join(', ')}.`);
  return ALL_SCOPE_NAMES.filter((s) => names.includes(s) && !ALWAYS_GRANTABLE.includes(s));
}

/** Whether `scope` is within `ceiling` (the stored list). */
export function withinCeiling(ceiling: readonly string[], scope: string): boolean {
  return ALWAYS_GRANTABLE.includes(scope) || ceiling.includes(ANY_SCOPE) || ceiling.includes(scope);
}

const shown = (doc: Pick<RoleDocument, '_id' | 'label' | 'ceiling'>): Role => ({
  name: doc._id,
  label: doc.label,
  ceiling: doc.ceiling ?? [],
});

/** The roles collection. */
export class RoleStore {
  private readonly model: Model<RoleDocument>;

  constructor(connection: Connection) {
    this.model = model(connection);
  }

  /** Seeds the default roles that are missing (an admin's changes to them are kept). */
  async init(): Promise<void> {
    await this.model.bulkWrite(
      DEFAULT_ROLES.map((r) => ({
        updateOne: {
          filter: { _id: r.name },
          update: { $setOnInsert: { label: r.label, ceiling: r.ceiling } },
          upsert: true,
        },
      })),
    );
  }

  /** Every role, `admin` first, then by name. */
  async list(): Promise<Role[]> {
    const docs = await this.model.find({}).sort({ _id: 1 }).lean<RoleDocument[]>();
    return docs.map(shown).sort((a, b) => Number(b.name === ADMIN_ROLE) - Number(a.name === ADMIN_ROLE));
  }

  /** The role named `name`, if there is one. */
  async find(name: string): Promise<Role | undefined> {
    const doc = await this.model.findById(name).lean<RoleDocument>();
    return doc ? shown(doc) : undefined;
  }

  /** The ceiling of `name`; a role that no longer exists grants nothing beyond the sign-in scopes. */
  async ceilingOf(name: string): Promise<string[]> {
    return (await this.find(name))?.ceiling ?? [];
  }

  /** Adds a role; refused when the name breaks {@link ROLE_NAME} or is taken. */
  async create(name: string, label: string, ceiling: readonly string[]): Promise<Role> {
    if (!ROLE_NAME.test(name))
      throw new RoleRefused(
        'A role name is lower-case letters, digits and "-", starting with a letter, at most 32.',
      );
    const text = label.trim();
    if (!text || text.length > 60) throw new RoleRefused('A role needs a label of at most 60 characters.');
    const checked = checkedCeiling(ceiling);
    if (checked.includes(ANY_SCOPE))
      throw new RoleRefused('Only the admin role may grant every scope; list the scopes instead.');
    const created = await this.model.updateOne(
      { _id: name },
      { $setOnInsert: { label: text, ceiling: checked } },
      { upsert: true },
    );
    if (!created.upsertedCount) throw new RoleRefused(`There is a role ${name} already.`);
    return { name, label: text, ceiling: checked };
  }

  /**
   * Sets the ceiling of `name`; returns the role before and after, or undefined when there is no such
   * role. The admin role's ceiling is every scope and stays so.
   */
  async setCeiling(
    name: string,
    ceiling: readonly string[],
  ): Promise<{ before: Role; after: Role } | undefined> {
    if (name === ADMIN_ROLE) throw new RoleRefused('Admins may grant every scope; that ceiling is fixed.');
    const checked = checkedCeiling(ceiling);
    if (checked.includes(ANY_SCOPE))
      throw new RoleRefused('Only the admin role may grant every scope; list the scopes instead.');
    const before = await this.model
      .findOneAndUpdate({ _id: name }, { $set: { ceiling: checked } })
      .lean<RoleDocument>();
    if (!before) return undefined;
    return { before: shown(before), after: { ...shown(before), ceiling: checked } };
  }

  /** Removes `name`; refused for `admin`. `inUse` is how many accounts hold it (refused unless 0). */
  async remove(name: string, inUse: number): Promise<boolean> {
    if (name === ADMIN_ROLE) throw new RoleRefused('The admin role cannot be removed.');
    if (inUse)
      throw new RoleRefused(
        `${inUse === 1 ? 'One account holds' : `${inUse} accounts hold`} the role ${name}: give ${inUse === 1 ? 'it' : 'them'} another role first.`,
      );
    return (await this.model.deleteOne({ _id: name })).deletedCount === 1;
  }
}
