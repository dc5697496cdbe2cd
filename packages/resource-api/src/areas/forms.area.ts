/**
 * Forms: sign-up, contact and survey forms on the school's site, and what visitors submitted.
 * Read-only through the API (`forms:read` only): list and get forms, and page through a form's
 * submissions at `/api/v1/forms/{id}/submissions`.
 */
import { Schema, type Connection } from 'mongoose';
import { z } from 'zod';
import type { SortSpec } from '../lib/cursor.js';
import { defineCollectionArea, NEWEST_FIRST, type CollectionArea } from '../lib/crud.js';
import { NotFoundError } from '../lib/errors.js';
import { choice, custom, instant, integer, ref, text } from '../lib/fields.js';
import { dateRangeFilters, enumFilter } from '../lib/filters.js';
import { pathId } from '../lib/ids.js';
import { cursorParam, limitParam, listOf, listPage } from '../lib/lists.js';
import { modelOn } from '../lib/models.js';
import type { Operation } from '../lib/operation.js';
import { recordOf } from '../lib/record.js';

const STATUS = ['open', 'closed'] as const;
const FIELD_TYPE = ['text', 'email', 'textarea', 'select', 'checkbox', 'number'] as const;

interface FormField {
  key: string;
  label: string;
  type: (typeof FIELD_TYPE)[number];
  required: boolean;
  options: string[];
}

const formFieldSchema = new Schema<FormField>(
  {
    key: { type: String, required: true },
    label: { type: String, required: true },
    type: { type: String, enum: FIELD_TYPE, default: 'text' },
    required: { type: Boolean, default: false },
    options: { type: [String], default: [] },
  },
  { _id: false },
);

const forms = defineCollectionArea({
  name: 'forms',
  noun: 'form',
  schemaName: 'Form',
  description: 'Forms on the school site (sign-up, contact, surveys) and their submissions (read-only).',
  fields: {
    title: text().required(),
    slug: text().required().with({ unique: true }),
    description: text().default(''),
    fields: custom({
      out: z.array(
        z.strictObject({
          key: z.string(),
          label: z.string(),
          type: z.enum(FIELD_TYPE),
          required: z.boolean(),
          options: z.array(z.string()),
        }),
      ),
      store: { type: [formFieldSchema] },
      toApi: (v) =>
        ((v as FormField[] | undefined) ?? []).map((f) => ({
          key: f.key,
          label: f.label,
          type: f.type,
          required: f.required ?? false,
          options: f.options ?? [],
        })),
    }),
    status: choice(STATUS).default('open'),
    submissions_count: integer().default(0),
  },
  list: {
    ...NEWEST_FIRST,
    search: { fields: ['title'], what: 'title (case-insensitive)' },
    filters: [enumFilter('status', 'status', STATUS, 'forms')],
  },
  unique: ['slug'],
});

const submission = recordOf(
  {
    form_id: ref().required().with({ index: true }),
    email: text().nullable(),
    values: custom({
      out: z.record(z.string(), z.string()).describe('Answers by field key'),
      store: { type: Schema.Types.Mixed, default: {} },
      toApi: (v) =>
        Object.fromEntries(Object.entries((v as object | undefined) ?? {}).map(([k, x]) => [k, String(x)])),
    }),
    submitted_at: instant().required(),
  },
  { timestamps: 'none' },
);
const submissionSchema = new Schema(submission.definition, { timestamps: true, versionKey: false });
const submissionModel = (connection: Connection) =>
  modelOn(connection, 'FormSubmission', submissionSchema, 'form_submissions');

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
    full: { name: 'FormSubmissionList', schema: listOf(submission.output) },
  },
  errors: [400, 404],
  async handle(ctx) {
    const formId = pathId(ctx.params.id, 'form');
    const { connection } = ctx.services;
    if (!(await forms.model(connection).exists({ _id: formId })))
      throw new NotFoundError('no form with this id');
    const parts: Record<string, unknown>[] = [{ formId }];
    for (const f of submissionFilters)
      if (ctx.query[f.param] !== undefined) parts.push(f.toFilter(ctx.query[f.param]));
    const page = await listPage<Record<string, unknown>>(
      submissionModel(connection),
      parts,
      SUBMISSION_SORT,
      ctx.query,
    );
    return {
      status: 200,
      body: { data: page.data.map(submission.toApi), next_cursor: page.next_cursor },
    };
  },
};

const area: CollectionArea & { submissions: { collection: string; toStored: typeof submission.toStored } } = {
  ...forms,
  operations: [...forms.operations, submissions],
  async init(connection) {
    await forms.init(connection);
    await submissionModel(connection).createIndexes();
  },
  /** Where submissions are stored and how (for the seed). */
  submissions: { collection: 'form_submissions', toStored: submission.toStored },
};

export default area;
