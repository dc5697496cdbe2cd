/**
 * `defineSingletonArea`: an area that is one document per school (school profile, appearance). It has
 * GET (`:read`, with a public view for anonymous callers) and PATCH (`:write`), at `/api/v1/<area>`
 * with no id. The document is created with its defaults the first time it is read or changed.
 */
import { AREAS, type AreaName } from '@school/shared';
import { Schema } from 'mongoose';
import { modelOn } from './models.js';
import type { AreaModule, Operation, OperationContext } from './operation.js';
import { recordOf, type Fields, type RecordOptions } from './record.js';

/** The declaration of a single-document area. */
export interface SingletonSpec {
  name: AreaName;
  noun: string;
  /** Base name of its OpenAPI schemas and its model. */
  schemaName: string;
  description: string;
  /** Its fields, by wire name (see `fields.ts`); a fresh document has their defaults. */
  fields: Fields;
  /** Which timestamps the wire shows (default both). */
  timestamps?: RecordOptions['timestamps'];
  examples: { update: Record<string, unknown> };
}

/** A single-document area: its operations, and its storage mapping for the seed. */
export interface SingletonArea extends AreaModule {
  collection: string;
  /** A whole wire document → its stored form. */
  toStored: (wire: Record<string, unknown>) => Record<string, unknown>;
}

/** Builds the GET and PATCH operations of a single-document area. */
export function defineSingletonArea(spec: SingletonSpec): SingletonArea {
  const access = AREAS.find((a) => a.name === spec.name)!.access as readonly string[];
  const record = recordOf(spec.fields, { id: false, timestamps: spec.timestamps });
  const collection = spec.name;
  const schema = new Schema(
    { _id: { type: String, required: true }, ...record.definition },
    { collection, timestamps: true, versionKey: false, strict: true },
  );
  const defaults: Record<string, unknown> = Object.fromEntries(
    Object.entries(record.definition)
      .map(([k, path]) => [k, (path as { default?: unknown }).default] as const)
      .filter(([, v]) => v !== undefined),
  );
  const docId = spec.name;
  const path = `/api/v1/${spec.name}`;
  const model = (ctx: OperationContext) =>
    modelOn(ctx.services.connection, spec.schemaName, schema, collection);

  /** Applies `changes` (possibly none), creating the document with its defaults if it is missing. */
  const upsert = async (ctx: OperationContext, changes: Record<string, unknown>) => {
    const onInsert = Object.fromEntries(Object.entries(defaults).filter(([k]) => !(k in changes)));
    const update: Record<string, unknown> = { $setOnInsert: onInsert };
    if (Object.keys(changes).length) update.$set = changes;
    const doc = await model(ctx)
      .findOneAndUpdate({ _id: docId }, update, {
        upsert: true,
        returnDocument: 'after',
        runValidators: true,
        setDefaultsOnInsert: true,
      })
      .lean();
    return doc as unknown as Record<string, unknown>;
  };

  const ops: Operation[] = [];
  if (access.includes('read')) {
    ops.push({
      area: spec.name,
      action: 'get',
      method: 'get',
      path,
      access: 'read',
      summary: `Get the ${spec.noun}`,
      description: `Anonymous callers get the public view.`,
      response: {
        status: 200,
        description: `The ${spec.noun}`,
        full: { name: spec.schemaName, schema: record.output },
        public: { name: `${spec.schemaName}Public`, schema: record.publicOutput! },
      },
      errors: [],
      async handle(ctx) {
        const existing = (await model(ctx).findById(docId).lean()) as Record<string, unknown> | null;
        const doc = existing ?? (await upsert(ctx, {}));
        return { status: 200, body: ctx.view === 'public' ? record.toPublic(doc) : record.toApi(doc) };
      },
    });
  }
  if (access.includes('write')) {
    ops.push({
      area: spec.name,
      action: 'update',
      method: 'patch',
      path,
      access: 'write',
      summary: `Update the ${spec.noun}`,
      description: 'Changes the fields present in the body; absent fields stay as they are.',
      body: { kind: 'json', schema: { name: `${spec.schemaName}Update`, schema: record.input.partial() } },
      response: {
        status: 200,
        description: `The updated ${spec.noun}`,
        full: { name: spec.schemaName, schema: record.output },
      },
      errors: [400, 413, 415],
      example: { body: spec.examples.update },
      async handle(ctx) {
        return { status: 200, body: record.toApi(await upsert(ctx, record.toStore(ctx.body))) };
      },
    });
  }
  return {
    name: spec.name,
    description: spec.description,
    operations: ops,
    collection,
    toStored: record.toStored,
  };
}
