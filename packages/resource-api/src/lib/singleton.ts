/**
 * `defineSingletonArea`: an area that is one document per school (school profile, appearance). It has
 * GET (`:read`, with a public view for anonymous callers) and PATCH (`:write`), at `/api/v1/<area>`
 * with no id. The document is created with its defaults the first time it is read or changed.
 */
import { AREAS, type AreaName } from '@school/shared';
import { Schema } from 'mongoose';
import type { z } from 'zod';
import { modelOn, type Stored } from './models.js';
import type { AreaModule, Operation, OperationContext } from './operation.js';

/** The declaration of a single-document area. */
export interface SingletonSpec<TDoc> {
  name: AreaName;
  noun: string;
  schemaName: string;
  description: string;
  modelName: string;
  collection: string;
  /** Mongoose schema fields (the `_id` is a fixed string). */
  fields: Record<string, unknown>;
  /** Storage values of a fresh document. */
  defaults: Record<string, unknown>;
  output: z.ZodObject;
  toApi(doc: Stored<TDoc>): z.output<z.ZodObject>;
  public: { output: z.ZodObject; toApi(doc: Stored<TDoc>): z.output<z.ZodObject> };
  input: { update: z.ZodObject; toStore(input: Record<string, unknown>): Record<string, unknown> };
  examples: { update: Record<string, unknown> };
}

/** Builds the GET and PATCH operations of a single-document area. */
export function defineSingletonArea<TDoc>(spec: SingletonSpec<TDoc>): AreaModule {
  const access = AREAS.find((a) => a.name === spec.name)!.access as readonly string[];
  const schema = new Schema(
    { _id: { type: String, required: true }, ...spec.fields },
    { collection: spec.collection, timestamps: true, versionKey: false, strict: true },
  );
  const docId = spec.name;
  const path = `/api/v1/${spec.name}`;
  const model = (ctx: OperationContext) =>
    modelOn(ctx.services.connection, spec.modelName, schema, spec.collection);

  /** Applies `changes` (possibly none), creating the document with its defaults if it is missing. */
  const upsert = async (ctx: OperationContext, changes: Record<string, unknown>) => {
    const onInsert = Object.fromEntries(Object.entries(spec.defaults).filter(([k]) => !(k in changes)));
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
    return doc as unknown as Stored<TDoc>;
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
        full: { name: spec.schemaName, schema: spec.output },
        public: { name: `${spec.schemaName}Public`, schema: spec.public.output },
      },
      errors: [],
      async handle(ctx) {
        const existing = (await model(ctx).findById(docId).lean()) as unknown as Stored<TDoc> | null;
        const doc = existing ?? (await upsert(ctx, {}));
        return { status: 200, body: ctx.view === 'public' ? spec.public.toApi(doc) : spec.toApi(doc) };
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
      body: { kind: 'json', schema: { name: `${spec.schemaName}Update`, schema: spec.input.update } },
      response: {
        status: 200,
        description: `The updated ${spec.noun}`,
        full: { name: spec.schemaName, schema: spec.output },
      },
      errors: [400, 413, 415],
      example: { body: spec.examples.update },
      async handle(ctx) {
        return { status: 200, body: spec.toApi(await upsert(ctx, spec.input.toStore(ctx.body))) };
      },
    });
  }
  return { name: spec.name, description: spec.description, operations: ops };
}
