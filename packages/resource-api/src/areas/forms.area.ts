/**
 * Forms: sign-up, contact and survey forms on the school's site, and what visitors submitted.
 * Read-only through the API (`forms:read` only): list and get forms, and page through a form's
 * submissions at `/api/v1/forms/{id}/submissions`.
 */
import { Schema, type Connection, type Types } from 'mongoose';
import { z } from 'zod';
import type { SortSpec } from '../lib/cursor.js';
import { defineCollectionArea } from '../lib/crud.js';
import { cursorParam, limitParam, listOf, listPage } from '../lib/lists.js';
import { modelOn, type Stored } from '../lib/models.js';
import { NotFoundError } from '../lib/errors.js';
import { dateRangeFilters, enumFilter } from '../lib/filters.js';
import { pathId } from '../lib/ids.js';
import type { AreaModule, Operation } from '../lib/operation.js';
import { idOf, instant, isoRequired } from '../lib/wire.js';

const STATUS = ['open', 'closed'] as const;
const FIELD_TYPE = ['text', 'email', 'textarea', 'select', 'checkbox', 'number'] as const;

interface FormField {
  key: string;
  label: string;
  type: (typeof FIELD_TYPE)[number];
  required: boolean;
  options: string[];
}

interface Form {
  title: string;
  slug: string;
  description: string;
  fields: FormField[];
  status: (typeof STATUS)[number];
  submissionsCount: number;
}

interface Submission {
  formId: Types.ObjectId;
  email?: string | null;
  values: Record<string, string>;
  submittedAt: Date;
}

const formSchema = new Schema<Form>(
  {
    title: { type: String, required: true },
    slug: { type: String, required: true, unique: true },
    description: { type: String, default: '' },
    fields: [
      new Schema<FormField>(
        {
          key: { type: String, required: true },
          label: { type: String, required: true },
          type: { type: String, enum: FIELD_TYPE, default: 'text' },
          required: { type: Boolean, default: false },
          options: { type: [String], default: [] },
        },
        { _id: false },
      ),
    ],
    status: { type: String, enum: STATUS, default: 'open' },
    submissionsCount: { type: Number, default: 0 },
  },
  { timestamps: true, versionKey: false },
);

const submissionSchema = new Schema<Submission>(
  {
    formId: { type: Schema.Types.ObjectId, required: true, index: true },
    email: String,
    values: { type: Schema.Types.Mixed, default: {} },
    submittedAt: { type: Date, required: true },
  },
  { timestamps: true, versionKey: false },
);

const submissionModel = (connection: Connection) =>
  modelOn(connection, 'FormSubmission', submissionSchema, 'form_submissions');

const output = z.strictObject({
  id: z.string(),
  title: z.string(),
  slug: z.string(),
  description: z.string(),
  fields: z.array(
    z.strictObject({
      key: z.string(),
      label: z.string(),
      type: z.enum(FIELD_TYPE),
      required: z.boolean(),
      options: z.array(z.string()),
    }),
  ),
  status: z.enum(STATUS),
  submissions_count: z.number().int(),
  created_at: instant,
  updated_at: instant,
});

const submissionOutput = z.strictObject({
  id: z.string(),
  form_id: z.string(),
  email: z.string().nullable(),
  values: z.record(z.string(), z.string()).describe('Answers by field key'),
  submitted_at: instant,
});

const forms = defineCollectionArea<Form>({
  name: 'forms',
  noun: 'form',
  schemaName: 'Form',
  description: 'Forms on the school site (sign-up, contact, surveys) and their submissions (read-only).',
  modelName: 'Form',
  collection: 'forms',
  schema: formSchema,
  output,
  toApi: (d: Stored<Form>) => ({
    id: idOf(d._id),
    title: d.title,
    slug: d.slug,
    description: d.description ?? '',
    fields: (d.fields ?? []).map((f) => ({
      key: f.key,
      label: f.label,
      type: f.type,
      required: f.required ?? false,
      options: f.options ?? [],
    })),
    status: d.status,
    submissions_count: d.submissionsCount ?? 0,
    created_at: isoRequired(d.createdAt),
    updated_at: isoRequired(d.updatedAt),
  }),
  list: {
    sort: { field: 'createdAt', order: -1, kind: 'date' },
    order: 'newest first',
    search: { fields: ['title'], what: 'title (case-insensitive)' },
    filters: [enumFilter('status', 'status', STATUS, 'forms')],
  },
  unique: ['slug'],
});

const SUBMISSION_SORT: SortSpec = { field: 'submittedAt', order: -1, kind: 'date' };
const submissionFilters = dateRangeFilters('submitted', 'submittedAt', 'submissions sent');

const submissions: Operation = {
  area: 'forms',
  action: 'list_submissions',
  method: 'get',
  path: '/api/v1/forms/{id}/submissions',
  access: 'read',
  summary: 'List the submissions of a form',
  description: 'Newest first, with cursor pagination.',
  query: z.strictObject({
    limit: limitParam,
    cursor: cursorParam,
    ...Object.fromEntries(submissionFilters.map((f) => [f.param, f.schema])),
  }),
  response: {
    status: 200,
    description: 'A page of submissions',
    full: { name: 'FormSubmissionList', schema: listOf(submissionOutput) },
  },
  errors: [400, 404],
  async handle(ctx) {
    const formId = pathId(ctx.params.id, 'form');
    const { connection } = ctx.services;
    const exists = await modelOn(connection, 'Form', formSchema, 'forms').exists({ _id: formId });
    if (!exists) throw new NotFoundError('no form with this id');
    const parts: Record<string, unknown>[] = [{ formId }];
    for (const f of submissionFilters)
      if (ctx.query[f.param] !== undefined) parts.push(f.toFilter(ctx.query[f.param]));
    const page = await listPage<Stored<Submission>>(
      submissionModel(connection),
      parts,
      SUBMISSION_SORT,
      ctx.query,
    );
    return {
      status: 200,
      body: {
        data: page.data.map((s) => ({
          id: idOf(s._id),
          form_id: idOf(s.formId),
          email: s.email ?? null,
          values: Object.fromEntries(Object.entries(s.values ?? {}).map(([k, v]) => [k, String(v)])),
          submitted_at: isoRequired(s.submittedAt),
        })),
        next_cursor: page.next_cursor,
      },
    };
  },
};

export default {
  ...forms,
  operations: [...forms.operations, submissions],
  async init(connection) {
    await forms.init?.(connection);
    await submissionModel(connection).createIndexes();
  },
} satisfies AreaModule;
