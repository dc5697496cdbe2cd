/**
 * Fills the demo school across every area. Idempotent: each document has a deterministic id
 * (`seedId`) and is written with `$setOnInsert`, so a second run adds nothing and never overwrites
 * what someone changed since; a seeded slug, code or email already taken by another document is
 * skipped. Accounts are not seeded here: the auth server's `seed-admin` creates the admin.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import mongoose, { type Connection, type Types } from 'mongoose';
import appearance from '../areas/appearance.area.js';
import comments from '../areas/comments.area.js';
import coupons from '../areas/coupons.area.js';
import courses from '../areas/courses.area.js';
import curriculum from '../areas/curriculum.area.js';
import digitalProducts from '../areas/digital-products.area.js';
import events from '../areas/events.area.js';
import forms from '../areas/forms.area.js';
import lecturers from '../areas/lecturers.area.js';
import members from '../areas/members.area.js';
import membershipPlans from '../areas/membership-plans.area.js';
import orders from '../areas/orders.area.js';
import pages from '../areas/pages.area.js';
import posts from '../areas/posts.area.js';
import school from '../areas/school.area.js';
import students from '../areas/students.area.js';
import subscriptions from '../areas/subscriptions.area.js';
import {
  APPEARANCE,
  COMMENT_TEXTS,
  COUPONS,
  COURSES,
  EVENTS,
  FIRST_NAMES,
  FORMS,
  LAST_NAMES,
  LECTURERS,
  LESSON_TITLES,
  PAGES,
  PLANS,
  POSTS,
  PRODUCTS,
  SCHOOL,
  SECTION_TITLES,
} from './data.js';
import { random, seedId } from './ids.js';

const DAY = 86_400_000;

type Doc = Record<string, unknown> & { _id: Types.ObjectId | string };
/** A seeded document in wire form (snake_case, ids as ObjectIds or strings), with its id and age. */
type Wire = Record<string, unknown> & { _id: Types.ObjectId | string; created: Date };
/** Where an area stores its documents and how a wire document is stored. */
type Store = { collection: string; toStored(wire: Record<string, unknown>): Record<string, unknown> };

/** How many documents each collection got (new ones only). */
export type SeedReport = Record<string, { inserted: number; existing: number }>;

/** Stores wire documents through the area's own mapping (`toStored`), stamped with their age. */
function seed(connection: Connection, area: Store, docs: Wire[], report: SeedReport) {
  const stored = docs.map(({ _id, created, ...wire }) => ({
    _id,
    ...area.toStored(wire),
    createdAt: created,
    updatedAt: created,
  }));
  return upsertAll(connection, area.collection, stored, report);
}

async function upsertAll(connection: Connection, collection: string, docs: Doc[], report: SeedReport) {
  const entry = (report[collection] ??= { inserted: 0, existing: 0 });
  for (const doc of docs) {
    try {
      const res = await connection
        .collection<Doc>(collection)
        .updateOne({ _id: doc._id }, { $setOnInsert: doc }, { upsert: true });
      if (res.upsertedCount) entry.inserted++;
      else entry.existing++;
    } catch (err) {
      if ((err as { code?: unknown }).code !== 11000) throw err;
      entry.existing++; // a unique slug/code/email is taken by a document created by someone else
    }
  }
}

const slugOf = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

/** Seeds everything; `now` anchors every relative date (orders of the last 120 days, upcoming events). */
export async function seedSchool(connection: Connection, now = new Date()): Promise<SeedReport> {
  const rnd = random(20240601);
  const report: SeedReport = {};
  const at = (daysAgo: number, hour = 10) =>
    new Date(Math.floor((now.getTime() - daysAgo * DAY) / DAY) * DAY + hour * 3_600_000);

  await seed(connection, school, [{ _id: 'school', ...SCHOOL, created: at(400) }], report);
  await seed(connection, appearance, [{ _id: 'appearance', ...APPEARANCE, created: at(400) }], report);

  await seed(
    connection,
    lecturers,
    LECTURERS.map(({ key, ...l }, i) => ({
      _id: seedId(`lecturer:${key}`),
      ...l,
      avatar_url: `https://crumbandcrust.example/avatars/${key}.jpg`,
      website_url: null,
      created: at(380 - i),
    })),
    report,
  );

  await seed(
    connection,
    courses,
    COURSES.map((c, i) => ({
      _id: seedId(`course:${c.key}`),
      title: c.title,
      slug: c.key,
      subtitle: c.subtitle,
      description: `${c.title}: ${c.subtitle.toLowerCase()}. Video lessons, printable recipes and feedback from the community.`,
      status: c.status,
      level: c.level,
      price_cents: c.priceCents,
      currency: 'USD',
      lecturer_ids: c.lecturers.map((k) => seedId(`lecturer:${k}`)),
      image_url: `https://crumbandcrust.example/courses/${c.key}.jpg`,
      published_at: c.status === 'draft' ? null : at(360 - i * 30),
      created: at(365 - i * 30),
    })),
    report,
  );

  const sections: Wire[] = [];
  for (const c of COURSES) {
    let lesson = 0;
    const count = c.key === 'bread-baking-101' ? 2 : 3 + (c.key.length % 2);
    for (let s = 0; s < count; s++) {
      const lessons = Array.from({ length: rnd.int(3, 5) }, (_, l) => ({
        id: String(seedId(`lesson:${c.key}:${s}:${l}`)),
        title: LESSON_TITLES[lesson++ % LESSON_TITLES.length]!,
        kind: l === 0 && s === 0 ? 'video' : rnd.pick(['video', 'video', 'text', 'quiz', 'download']),
        duration_minutes: rnd.int(3, 25),
        content: null,
        video_url: `https://video.crumbandcrust.example/${c.key}/${s}-${l}.mp4`,
        free_preview: s === 0 && l === 0,
      }));
      sections.push({
        _id: seedId(`section:${c.key}:${s}`),
        course_id: seedId(`course:${c.key}`),
        title: SECTION_TITLES[s]!,
        position: s,
        lessons,
        created: at(300),
      });
    }
  }
  await seed(connection, curriculum, sections, report);

  const paidCourses = COURSES.filter((c) => c.status === 'published');
  const studentDocs: Wire[] = [];
  const studentInfo: {
    id: Types.ObjectId;
    email: string;
    courses: (typeof COURSES)[number][];
    joined: number;
  }[] = [];
  for (let i = 0; i < 60; i++) {
    const first = FIRST_NAMES[i % FIRST_NAMES.length]!;
    const last = LAST_NAMES[(i * 7) % LAST_NAMES.length]!;
    const email = `${slugOf(first)}.${slugOf(last)}${i}@example.com`;
    const joined = rnd.int(1, 150);
    const courses = [...new Set(Array.from({ length: rnd.int(1, 3) }, () => rnd.pick(paidCourses)))];
    const enrollments = courses.map((c) => {
      const enrolled = Math.max(0, joined - rnd.int(0, 10));
      const progress = rnd.pick([0, 10, 25, 40, 60, 80, 100]);
      return {
        course_id: seedId(`course:${c.key}`),
        enrolled_at: at(enrolled, 9 + (i % 10)),
        progress_percent: progress,
        completed_at: progress === 100 ? at(Math.max(0, enrolled - rnd.int(3, 20))) : null,
        last_activity_at: progress > 0 ? at(Math.max(0, enrolled - rnd.int(0, 30))) : null,
      };
    });
    const id = seedId(`student:${i}`);
    studentInfo.push({ id, email, courses, joined });
    studentDocs.push({
      _id: id,
      email,
      name: `${first} ${last}`,
      status: i % 29 === 28 ? 'suspended' : 'active',
      tags: i % 3 === 0 ? ['newsletter'] : [],
      enrollments,
      last_active_at: at(rnd.int(0, Math.min(joined, 30))),
      created: at(joined, 8),
    });
  }
  await seed(connection, students, studentDocs, report);

  const memberDocs: Wire[] = studentInfo.slice(0, 25).map((s, i) => ({
    _id: seedId(`member:${i}`),
    email: s.email,
    name: String(studentDocs[i]!.name),
    role: i === 0 ? 'host' : i < 3 ? 'moderator' : 'member',
    status: i === 24 ? 'left' : 'active',
    bio: i % 4 === 0 ? 'Home baker, weekend sourdough.' : null,
    joined_at: at(s.joined - 1),
    last_seen_at: at(rnd.int(0, 20)),
    created: at(s.joined - 1),
  }));
  await seed(connection, members, memberDocs, report);

  const orderDocs: Wire[] = [];
  let number = 10001;
  for (const s of studentInfo) {
    for (const c of s.courses) {
      if (c.priceCents === 0) continue;
      const placed = at(Math.max(0, s.joined - rnd.int(0, 10)), 12 + (number % 8));
      const coupon = rnd.chance(0.25) ? rnd.pick(['WELCOME10', 'SOURDOUGH20']) : null;
      const percent = coupon === 'WELCOME10' ? 10 : coupon === 'SOURDOUGH20' ? 20 : 0;
      const discount = Math.round((c.priceCents * percent) / 100);
      const status = rnd.chance(0.05) ? 'refunded' : rnd.chance(0.04) ? 'failed' : 'paid';
      orderDocs.push({
        _id: seedId(`order:${number}`),
        number: `CC-${number++}`,
        student_id: s.id,
        email: s.email,
        items: [
          {
            kind: 'course',
            product_id: seedId(`course:${c.key}`),
            title: c.title,
            unit_price_cents: c.priceCents,
            quantity: 1,
          },
        ],
        subtotal_cents: c.priceCents,
        discount_cents: discount,
        total_cents: c.priceCents - discount,
        currency: 'USD',
        coupon_code: coupon,
        status,
        paid_at: status === 'failed' ? null : placed,
        refunded_at: status === 'refunded' ? new Date(placed.getTime() + 3 * DAY) : null,
        created: placed,
      });
    }
  }
  await seed(connection, orders, orderDocs, report);

  await seed(
    connection,
    membershipPlans,
    PLANS.map(({ key, ...p }, i) => ({
      _id: seedId(`plan:${key}`),
      ...p,
      slug: key,
      description: `${p.name}: ${p.features.join(', ')}.`,
      currency: 'USD',
      created: at(200 - i),
    })),
    report,
  );

  const subscriptionDocs: Wire[] = studentInfo.slice(10, 30).map((s, i) => {
    const plan = PLANS[i % 3]!;
    const start = at(rnd.int(0, 25));
    const status = i % 9 === 8 ? 'canceled' : i % 7 === 6 ? 'past_due' : i % 5 === 4 ? 'trialing' : 'active';
    return {
      _id: seedId(`subscription:${i}`),
      student_id: s.id,
      plan_id: seedId(`plan:${plan.key}`),
      status,
      current_period_start: start,
      current_period_end: new Date(start.getTime() + (plan.interval === 'year' ? 365 : 30) * DAY),
      cancel_at_period_end: status === 'canceled',
      canceled_at: status === 'canceled' ? at(2) : null,
      created: at(s.joined - 2),
    };
  });
  await seed(connection, subscriptions, subscriptionDocs, report);

  await seed(
    connection,
    coupons,
    COUPONS.map((c, i) => ({
      _id: seedId(`coupon:${c.code}`),
      code: c.code,
      description: c.description,
      discount_type: c.discountType,
      percent_off: 'percentOff' in c ? c.percentOff : null,
      amount_off_cents: 'amountOffCents' in c ? c.amountOffCents : null,
      currency: 'currency' in c ? c.currency : null,
      course_ids: 'courses' in c ? c.courses.map((k) => seedId(`course:${k}`)) : [],
      max_redemptions: c.maxRedemptions,
      times_redeemed: c.timesRedeemed,
      expires_at: c.expiresInDays === null ? null : at(-c.expiresInDays),
      active: c.active,
      created: at(250 - i * 20),
    })),
    report,
  );

  await seed(
    connection,
    events,
    EVENTS.map((e, i) => {
      const starts = new Date(at(-e.daysFromNow, 17).getTime());
      return {
        _id: seedId(`event:${e.key}`),
        title: e.title,
        description: `${e.title}. Bring your questions and your dough.`,
        starts_at: starts,
        ends_at: new Date(starts.getTime() + e.hours * 3_600_000),
        timezone: 'Europe/Berlin',
        location_type: e.locationType,
        location: e.location,
        capacity: e.capacity,
        registrations_count: e.registrations,
        status: e.status,
        created: at(60 - i),
      };
    }),
    report,
  );

  await seed(
    connection,
    posts,
    POSTS.map((p) => ({
      _id: seedId(`post:${p.key}`),
      title: p.title,
      slug: p.key,
      excerpt: `${p.title} — a short read for home bakers.`,
      body: `# ${p.title}\n\nNotes from our kitchen.`,
      tags: [...p.tags],
      author_id: p.author ? seedId(`lecturer:${p.author}`) : null,
      status: p.status,
      published_at: p.status === 'draft' ? null : at(p.daysAgo),
      created: at(p.daysAgo + 1),
    })),
    report,
  );

  const published = POSTS.filter((p) => p.status === 'published');
  await seed(
    connection,
    comments,
    Array.from({ length: 30 }, (_, i) => {
      const post = published[i % published.length]!;
      const student = studentInfo[(i * 3) % studentInfo.length]!;
      const text = COMMENT_TEXTS[i % COMMENT_TEXTS.length]!;
      return {
        _id: seedId(`comment:${i}`),
        post_id: seedId(`post:${post.key}`),
        author_name: String(studentDocs[(i * 3) % studentDocs.length]!.name),
        author_email: student.email,
        body: text,
        status: text.includes('spam') ? 'spam' : i % 6 === 5 ? 'pending' : 'approved',
        created: at(Math.max(0, post.daysAgo - 1 - (i % 5)), 8 + (i % 12)),
      };
    }),
    report,
  );

  const bucket = new mongoose.mongo.GridFSBucket(connection.db!, { bucketName: 'storage' });
  const files = (report['storage.files'] ??= { inserted: 0, existing: 0 });
  for (const p of PRODUCTS) {
    if (!p.file) continue;
    const id = seedId(`file:${p.key}`);
    if (await connection.collection('storage.files').findOne({ _id: id })) {
      files.existing++;
      continue;
    }
    // Chunks of an earlier run cut short before its files document: start that file afresh.
    await connection.collection('storage.chunks').deleteMany({ files_id: id });
    const upload = bucket.openUploadStreamWithId(id, p.file.name, { metadata: { contentType: p.file.type } });
    await pipeline(Readable.from([Buffer.from(p.file.content)]), upload);
    files.inserted++;
  }
  await seed(
    connection,
    digitalProducts,
    PRODUCTS.map((p, i) => ({
      _id: seedId(`product:${p.key}`),
      title: p.title,
      slug: p.key,
      description: `${p.title} for home bakers.`,
      price_cents: p.priceCents,
      currency: 'USD',
      file_ids: p.file ? [seedId(`file:${p.key}`)] : [],
      image_url: null,
      status: p.status,
      created: at(120 - i * 10),
    })),
    report,
  );

  const submissions: Wire[] = [];
  const formDocs = FORMS.map((f, i) => {
    const count = f.key === 'newsletter' ? 25 : f.key === 'contact' ? 8 : 12;
    for (let n = 0; n < count; n++) {
      const s = studentInfo[(n * 5 + i) % studentInfo.length]!;
      const values: Record<string, string> =
        f.key === 'newsletter'
          ? { email: s.email, level: rnd.pick(['beginner', 'intermediate', 'advanced']) }
          : f.key === 'contact'
            ? {
                name: String(studentDocs[(n * 5 + i) % studentDocs.length]!.name),
                email: s.email,
                message: 'Do you offer gift cards?',
              }
            : {
                rating: String(rnd.int(3, 5)),
                comments: rnd.pick(['Loved it', 'Too short', 'More shaping please', '']),
              };
      submissions.push({
        _id: seedId(`submission:${f.key}:${n}`),
        form_id: seedId(`form:${f.key}`),
        email: values.email ?? null,
        values,
        submitted_at: at(rnd.int(0, 90), 7 + (n % 14)),
        created: at(0),
      });
    }
    return {
      _id: seedId(`form:${f.key}`),
      title: f.title,
      slug: f.key,
      description: `${f.title} form on the school site.`,
      fields: f.fields.map((x) => ({ ...x, options: [...x.options] })),
      status: f.status,
      submissions_count: count,
      created: at(180 - i * 30),
    };
  });
  await seed(connection, forms, formDocs, report);
  await seed(connection, forms.submissions, submissions, report);

  await seed(
    connection,
    pages,
    PAGES.map((p, i) => ({
      _id: seedId(`page:${p.key}`),
      title: p.title,
      slug: p.key,
      body: p.body,
      seo_title: p.title,
      seo_description: null,
      status: p.status,
      published_at: p.status === 'published' ? at(300 - i) : null,
      created: at(301 - i),
    })),
    report,
  );

  return report;
}
