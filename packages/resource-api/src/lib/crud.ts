/**
 * `defineCollectionArea`: an area that is a collection of documents, declared as data and turned into
 * its operations. Which operations exist follows the area's scopes in `@school/shared` exactly:
 * `:read` gives list and get, `:write` gives create, update (PATCH) and delete.
 *
 * Each operation is a short pipeline over the area's model: build the filter (public view, filters,
 * search, cursor) → query → map every document through `toApi` (or the public `toApi`) → answer. A
 * duplicate unique field is 409; an id that is malformed, unknown or outside the caller's view is 404.
 *
 * Interrupted writes: every create and update writes one document (embedded lists such as a
 * section's lessons or a student's enrollments go with it, atomically). The one multi-document write
 * is a delete with `dependents` (a course's curriculum sections, a post's comments), and FerretDB has
 * no transactions, so it is ordered to leave only states that are valid anyway: the dependents go
 * first, then the document, then a second sweep catches dependents created meanwhile. A crash between
 * the steps leaves a document with fewer dependents (the client saw no 204 and retries), never
 * dependents of a missing document; a retry, even one answered 404, removes any dependents left.
 */
import { AREAS, type AreaName } from '@school/shared';
import { Schema, type Connection } from 'mongoose';
import { z } from 'zod';
import type { SortSpec } from './cursor.js';
import { ConflictError, InvalidRequestError, NotFoundError, type Problem } from './errors.js';
import { allOf, searchFilter, type FilterSpec } from './filters.js';
import { pathId } from './ids.js';
import { cursorParam, limitParam, listOf, listPage } from './lists.js';
import { isDuplicateKey, modelOn, type LooseModel } from './models.js';
import type { AreaModule, NamedSchema, Operation, OperationContext } from './operation.js';
import { recordOf, type Fields } from './record.js';

/** A stored document as read with `lean()`. */
type Stored = Record<string, unknown> & { _id: unknown };

/** The declaration of a collection area. */
export interface CollectionSpec {
  name: AreaName;
  /** Singular noun for texts, e.g. `course`, `membership plan`. */
  noun: string;
  /** Base name of its OpenAPI schemas and its model, e.g. `Course` (→ Course, CoursePublic, ...). */
  schemaName: string;
  description: string;
  /** Default: the area's name. */
  collection?: string;
  /** Its fields, by wire name (see `fields.ts`); the wire shows them with id and timestamps. */
  fields: Fields;
  /** The anonymous view (its public fields); omit when anonymous callers get 403. */
  public?: {
    /** Which items, in words, e.g. `published courses`. */
    what: string;
    /** Which documents anonymous callers may see, e.g. `{status: 'published'}`. */
    filter: Record<string, unknown>;
  };
  /** Extra JSON Schema for the create input's document (a rule zod does not express). */
  createMeta?: Record<string, unknown>;
  /** Adds storage fields derived from the (validated) wire input on every write, e.g. `publishedAt`. */
  derive?(stored: Record<string, unknown>, input: Record<string, unknown>): void;
  /** Fills storage fields derived on create (e.g. a slug from the title). */
  onCreate?(stored: Record<string, unknown>): Record<string, unknown>;
  /**
   * Cross-field and reference checks on the document as it would be stored (after merging an
   * update); problems name wire paths (`body.ends_at`).
   */
  check?(doc: Record<string, unknown>, connection: Connection): Problem[] | Promise<Problem[]>;
  list: {
    sort: SortSpec;
    /** The order in words, e.g. `newest first`. */
    order: string;
    search?: { fields: string[]; what: string };
    filters?: FilterSpec[];
  };
  /** Wire names of unique fields, for the 409 text. */
  unique?: string[];
  /** Documents that belong to this one (`field` holds its id) and are deleted with it (see above). */
  dependents?: { collection: string; field: string }[];
  examples?: { create: Record<string, unknown>; update: Record<string, unknown> };
}

/** The list order of most areas: by creation time (the `createdAt` every collection stamps), newest first. */
export const NEWEST_FIRST = {
  sort: { field: 'createdAt', order: -1, kind: 'date' },
  order: 'newest first',
} satisfies Pick<CollectionSpec['list'], 'sort' | 'order'>;

/** A collection area: its operations, and its model and storage mapping for the seed and extra operations. */
export interface CollectionArea extends AreaModule {
  init(connection: Connection): Promise<void>;
  collection: string;
  model(connection: Connection): LooseModel;
  /** A whole wire document → its stored form. */
  toStored: (wire: Record<string, unknown>) => Record<string, unknown>;
}

/** Builds the operations of a collection area. */
export function defineCollectionArea(spec: CollectionSpec): CollectionArea {
  const record = recordOf(spec.fields);
  const collection = spec.collection ?? spec.name;
  const schema = new Schema(record.definition, { timestamps: true, versionKey: false });
  const modelOf = (connection: Connection) => modelOn(connection, spec.schemaName, schema, collection);
  const access = AREAS.find((a) => a.name === spec.name)!.access as readonly string[];
  const base = `/api/v1/${spec.name}`;
  const plural = spec.name.replace(/_/g, ' ');
  const a = /^[aeiou]/.test(spec.noun) ? 'an' : 'a';
  const model = (ctx: OperationContext) => modelOf(ctx.services.connection);
  const present = (ctx: OperationContext, doc: Stored) =>
    ctx.view === 'public' ? record.toPublic(doc) : record.toApi(doc);
  const visible = (ctx: OperationContext) => (ctx.view === 'public' ? spec.public!.filter : {});
  const conflict = () =>
    new ConflictError(
      `${a} ${spec.noun} with this ${(spec.unique ?? ['value']).join(' or ')} already exists`,
    );

  const named = (suffix: string, schema: z.ZodType): NamedSchema => ({
    name: `${spec.schemaName}${suffix}`,
    schema,
  });
  const full = named('', record.output);
  const publicOutput = spec.public ? record.publicOutput : undefined;
  const pub = publicOutput ? named('Public', publicOutput) : undefined;
  const filters = spec.list.filters ?? [];
  const listQuery = z.strictObject({
    limit: limitParam,
    cursor: cursorParam,
    ...(spec.list.search
      ? { q: z.string().min(1).max(100).optional().describe(`Search ${spec.list.search.what}`) }
      : {}),
    ...Object.fromEntries(filters.map((f) => [f.param, f.schema])),
  });
  const publicNote = spec.public
    ? ` Anonymous callers get the public view: ${spec.public.what}, fewer fields.`
    : '';

  const ops: Operation[] = [];
  if (access.includes('read')) {
    ops.push({
      area: spec.name,
      action: 'list',
      method: 'get',
      path: base,
      access: 'read',
      summary: `List ${plural}`,
      description: `Lists ${plural}, ${spec.list.order}, with cursor pagination.${publicNote}`,
      query: listQuery,
      response: {
        status: 200,
        description: `A page of ${plural}`,
        full: named('List', listOf(record.output)),
        public: publicOutput ? named('PublicList', listOf(publicOutput)) : undefined,
      },
      errors: [400],
      async handle(ctx) {
        const q = ctx.query;
        const parts: Record<string, unknown>[] = [visible(ctx)];
        for (const f of filters) if (q[f.param] !== undefined) parts.push(f.toFilter(q[f.param]));
        if (spec.list.search && typeof q.q === 'string')
          parts.push(searchFilter(spec.list.search.fields, q.q));
        const page = await listPage<Stored>(model(ctx), parts, spec.list.sort, q);
        return {
          status: 200,
          body: { data: page.data.map((d) => present(ctx, d)), next_cursor: page.next_cursor },
        };
      },
    });
    ops.push({
      area: spec.name,
      action: 'get',
      method: 'get',
      path: `${base}/{id}`,
      access: 'read',
      summary: `Get ${a} ${spec.noun}`,
      description: `Gets one ${spec.noun} by id.${publicNote}`,
      response: { status: 200, description: `The ${spec.noun}`, full, public: pub },
      errors: [404],
      async handle(ctx) {
        const id = pathId(ctx.params.id, spec.noun);
        const doc = (await model(ctx)
          .findOne(allOf([{ _id: id }, visible(ctx)]))
          .lean()) as Stored | null;
        if (!doc) throw new NotFoundError(`no ${spec.noun} with this id`);
        return { status: 200, body: present(ctx, doc) };
      },
    });
  }

  if (access.includes('write')) {
    if (!Object.keys(record.input.shape).length)
      throw new Error(`area ${spec.name} has ${spec.name}:write but declares no input`);
    const create = spec.createMeta ? record.input.meta(spec.createMeta) : record.input;
    const createSchema = named('Create', create);
    const updateSchema = named('Update', record.input.partial());
    const toStore = (body: Record<string, unknown>) => {
      const stored = record.toStore(body);
      spec.derive?.(stored, body);
      return stored;
    };
    const check = async (ctx: OperationContext, doc: Record<string, unknown>) => {
      const problems = (await spec.check?.(doc, ctx.services.connection)) ?? [];
      if (problems.length) throw new InvalidRequestError(problems);
    };
    ops.push({
      area: spec.name,
      action: 'create',
      method: 'post',
      path: base,
      access: 'write',
      summary: `Create ${a} ${spec.noun}`,
      body: { kind: 'json', schema: createSchema },
      response: { status: 201, description: `The created ${spec.noun}`, full },
      errors: [400, 409, 413, 415],
      example: spec.examples ? { body: spec.examples.create } : undefined,
      async handle(ctx) {
        let stored = toStore(ctx.body);
        if (spec.onCreate) stored = spec.onCreate(stored);
        await check(ctx, stored);
        let created;
        try {
          created = await model(ctx).create(stored);
        } catch (err) {
          if (isDuplicateKey(err)) throw conflict();
          throw err;
        }
        const doc = created.toObject() as Stored;
        return {
          status: 201,
          body: record.toApi(doc),
          headers: { Location: `${ctx.services.config.BASE_URL}${base}/${String(doc._id)}` },
        };
      },
    });
    ops.push({
      area: spec.name,
      action: 'update',
      method: 'patch',
      path: `${base}/{id}`,
      access: 'write',
      summary: `Update ${a} ${spec.noun}`,
      description: `Changes the fields present in the body; absent fields stay as they are, null clears an optional field.`,
      body: { kind: 'json', schema: updateSchema },
      response: { status: 200, description: `The updated ${spec.noun}`, full },
      errors: [400, 404, 409, 413, 415],
      example: spec.examples ? { body: spec.examples.update } : undefined,
      async handle(ctx) {
        const id = pathId(ctx.params.id, spec.noun);
        const changes = toStore(ctx.body);
        const M = model(ctx);
        if (spec.check) {
          const current = await M.findById(id).lean();
          if (!current) throw new NotFoundError(`no ${spec.noun} with this id`);
          await check(ctx, { ...(current as Record<string, unknown>), ...changes });
        }
        let doc;
        try {
          doc = Object.keys(changes).length
            ? await M.findOneAndUpdate(
                { _id: id },
                { $set: changes },
                { returnDocument: 'after', runValidators: true },
              ).lean()
            : await M.findById(id).lean();
        } catch (err) {
          if (isDuplicateKey(err)) throw conflict();
          throw err;
        }
        if (!doc) throw new NotFoundError(`no ${spec.noun} with this id`);
        return { status: 200, body: record.toApi(doc) };
      },
    });
    ops.push({
      area: spec.name,
      action: 'delete',
      method: 'delete',
      path: `${base}/{id}`,
      access: 'write',
      summary: `Delete ${a} ${spec.noun}`,
      response: { status: 204, description: `The ${spec.noun} is gone` },
      errors: [404],
      async handle(ctx) {
        const id = pathId(ctx.params.id, spec.noun);
        const M = model(ctx);
        const removeDependents = () =>
          Promise.all(
            (spec.dependents ?? []).map((d) =>
              ctx.services.connection.collection(d.collection).deleteMany({ [d.field]: id }),
            ),
          );
        const exists = await M.exists({ _id: id });
        await removeDependents();
        if (!exists) throw new NotFoundError(`no ${spec.noun} with this id`);
        const result = await M.deleteOne({ _id: id });
        if (result.deletedCount === 0) throw new NotFoundError(`no ${spec.noun} with this id`);
        await removeDependents();
        return { status: 204 };
      },
    });
  }

  return {
    name: spec.name,
    description: spec.description,
    operations: ops,
    async init(connection) {
      await modelOf(connection).createIndexes();
    },
    collection,
    model: modelOf,
    toStored: record.toStored,
  };
}
