/**
 * Fills the demo school across every area. Idempotent: each document has a deterministic id
 * (`seedId`) and is written with `$setOnInsert`, so a second run adds nothing and never overwrites
 * what someone changed since; a seeded slug, code or email already taken by another document is
 * skipped. Accounts are not seeded here: the auth server's `seed-admin` creates the admin.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import mongoose, { type Connection, type Types } from 'mongoose';
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

/** How many documents each collection got (new ones only). */
export type SeedReport = Record<string, { inserted: number; existing: number }>;

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
  const stamps = (d: Date) => ({ createdAt: d, updatedAt: d });

  await upsertAll(connection, 'school', [{ _id: 'school', ...SCHOOL, ...stamps(at(400)) }], report);
  await upsertAll(
    connection,
    'appearance',
    [{ _id: 'appearance', ...APPEARANCE, ...stamps(at(400)) }],
    report,
  );

  await upsertAll(
    connection,
    'lecturers',
    LECTURERS.map(({ key, ...l }, i) => ({
      _id: seedId(`lecturer:${key}`),
      ...l,
      avatarUrl: `https://crumbandcrust.example/avatars/${key}.jpg`,
      websiteUrl: null,
      ...stamps(at(380 - i)),
    })),
    report,
  );

  await upsertAll(
    connection,
    'courses',
    COURSES.map((c, i) => ({
      _id: seedId(`course:${c.key}`),
      title: c.title,
      slug: c.key,
      subtitle: c.subtitle,
      description: `${c.title}: ${c.subtitle.toLowerCase()}. Video lessons, printable recipes and feedback from the community.`,
      status: c.status,
      level: c.level,
      priceCents: c.priceCents,
      currency: 'USD',
      lecturerIds: c.lecturers.map((k) => seedId(`lecturer:${k}`)),
      imageUrl: `https://crumbandcrust.example/courses/${c.key}.jpg`,
      publishedAt: c.status === 'draft' ? null : at(360 - i * 30),
      ...stamps(at(365 - i * 30)),
    })),
    report,
  );

  const sections: Doc[] = [];
  for (const c of COURSES) {
    let lesson = 0;
    const count = c.key === 'bread-baking-101' ? 2 : 3 + (c.key.length % 2);
    for (let s = 0; s < count; s++) {
      const lessons = Array.from({ length: rnd.int(3, 5) }, (_, l) => ({
        _id: seedId(`lesson:${c.key}:${s}:${l}`),
        title: LESSON_TITLES[lesson++ % LESSON_TITLES.length]!,
        kind: l === 0 && s === 0 ? 'video' : rnd.pick(['video', 'video', 'text', 'quiz', 'download']),
        durationMinutes: rnd.int(3, 25),
        content: null,
        videoUrl: `https://video.crumbandcrust.example/${c.key}/${s}-${l}.mp4`,
        freePreview: s === 0 && l === 0,
      }));
      sections.push({
        _id: seedId(`section:${c.key}:${s}`),
        courseId: seedId(`course:${c.key}`),
        title: SECTION_TITLES[s]!,
        position: s,
        lessons,
        ...stamps(at(300)),
      });
    }
  }
  await upsertAll(connection, 'curriculum_sections', sections, report);

  const paidCourses = COURSES.filter((c) => c.status === 'published');
  const students: Doc[] = [];
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
        courseId: seedId(`course:${c.key}`),
        enrolledAt: at(enrolled, 9 + (i % 10)),
        progressPercent: progress,
        completedAt: progress === 100 ? at(Math.max(0, enrolled - rnd.int(3, 20))) : null,
        lastActivityAt: progress > 0 ? at(Math.max(0, enrolled - rnd.int(0, 30))) : null,
      };
    });
    const id = seedId(`student:${i}`);
    studentInfo.push({ id, email, courses, joined });
    students.push({
      _id: id,
      email,
      name: `${first} ${last}`,
      status: i % 29 === 28 ? 'suspended' : 'active',
      tags: i % 3 === 0 ? ['newsletter'] : [],
      enrollments,
      lastActiveAt: at(rnd.int(0, Math.min(joined, 30))),
      ...stamps(at(joined, 8)),
    });
  }
  await upsertAll(connection, 'students', students, report);

  const members: Doc[] = studentInfo.slice(0, 25).map((s, i) => ({
    _id: seedId(`member:${i}`),
    email: s.email,
    name: String(students[i]!.name),
    role: i === 0 ? 'host' : i < 3 ? 'moderator' : 'member',
    status: i === 24 ? 'left' : 'active',
    bio: i % 4 === 0 ? 'Home baker, weekend sourdough.' : null,
    joinedAt: at(s.joined - 1),
    lastSeenAt: at(rnd.int(0, 20)),
    ...stamps(at(s.joined - 1)),
  }));
  await upsertAll(connection, 'members', members, report);

  const orders: Doc[] = [];
  let number = 10001;
  for (const s of studentInfo) {
    for (const c of s.courses) {
      if (c.priceCents === 0) continue;
      const placed = at(Math.max(0, s.joined - rnd.int(0, 10)), 12 + (number % 8));
      const coupon = rnd.chance(0.25) ? rnd.pick(['WELCOME10', 'SOURDOUGH20']) : null;
      const percent = coupon === 'WELCOME10' ? 10 : coupon === 'SOURDOUGH20' ? 20 : 0;
      const discount = Math.round((c.priceCents * percent) / 100);
      const status = rnd.chance(0.05) ? 'refunded' : rnd.chance(0.04) ? 'failed' : 'paid';
      orders.push({
        _id: seedId(`order:${number}`),
        number: `CC-${number++}`,
        studentId: s.id,
        email: s.email,
        items: [
          {
            kind: 'course',
            productId: seedId(`course:${c.key}`),
            title: c.title,
            unitPriceCents: c.priceCents,
            quantity: 1,
          },
        ],
        subtotalCents: c.priceCents,
        discountCents: discount,
        totalCents: c.priceCents - discount,
        currency: 'USD',
        couponCode: coupon,
        status,
        paidAt: status === 'failed' ? null : placed,
        refundedAt: status === 'refunded' ? new Date(placed.getTime() + 3 * DAY) : null,
        ...stamps(placed),
      });
    }
  }
  await upsertAll(connection, 'orders', orders, report);

  await upsertAll(
    connection,
    'membership_plans',
    PLANS.map(({ key, ...p }, i) => ({
      _id: seedId(`plan:${key}`),
      ...p,
      slug: key,
      description: `${p.name}: ${p.features.join(', ')}.`,
      currency: 'USD',
      ...stamps(at(200 - i)),
    })),
    report,
  );

  const subscriptions: Doc[] = studentInfo.slice(10, 30).map((s, i) => {
    const plan = PLANS[i % 3]!;
    const start = at(rnd.int(0, 25));
    const status = i % 9 === 8 ? 'canceled' : i % 7 === 6 ? 'past_due' : i % 5 === 4 ? 'trialing' : 'active';
    return {
      _id: seedId(`subscription:${i}`),
      studentId: s.id,
      planId: seedId(`plan:${plan.key}`),
      status,
      currentPeriodStart: start,
      currentPeriodEnd: new Date(start.getTime() + (plan.interval === 'year' ? 365 : 30) * DAY),
      cancelAtPeriodEnd: status === 'canceled',
      canceledAt: status === 'canceled' ? at(2) : null,
      ...stamps(at(s.joined - 2)),
    };
  });
  await upsertAll(connection, 'subscriptions', subscriptions, report);

  await upsertAll(
    connection,
    'coupons',
    COUPONS.map((c, i) => ({
      _id: seedId(`coupon:${c.code}`),
      code: c.code,
      description: c.description,
      discountType: c.discountType,
      percentOff: 'percentOff' in c ? c.percentOff : null,
      amountOffCents: 'amountOffCents' in c ? c.amountOffCents : null,
      currency: 'currency' in c ? c.currency : null,
      courseIds: 'courses' in c ? c.courses.map((k) => seedId(`course:${k}`)) : [],
      maxRedemptions: c.maxRedemptions,
      timesRedeemed: c.timesRedeemed,
      expiresAt: c.expiresInDays === null ? null : at(-c.expiresInDays),
      active: c.active,
      ...stamps(at(250 - i * 20)),
    })),
    report,
  );

  await upsertAll(
    connection,
    'events',
    EVENTS.map((e, i) => {
      const starts = new Date(at(-e.daysFromNow, 17).getTime());
      return {
        _id: seedId(`event:${e.key}`),
        title: e.title,
        description: `${e.title}. Bring your questions and your dough.`,
        startsAt: starts,
        endsAt: new Date(starts.getTime() + e.hours * 3_600_000),
        timezone: 'Europe/Berlin',
        locationType: e.locationType,
        location: e.location,
        capacity: e.capacity,
        registrationsCount: e.registrations,
        status: e.status,
        ...stamps(at(60 - i)),
      };
    }),
    report,
  );

  await upsertAll(
    connection,
    'posts',
    POSTS.map((p) => ({
      _id: seedId(`post:${p.key}`),
      title: p.title,
      slug: p.key,
      excerpt: `${p.title} — a short read for home bakers.`,
      body: `# ${p.title}\n\nNotes from our kitchen.`,
      tags: [...p.tags],
      authorId: p.author ? seedId(`lecturer:${p.author}`) : null,
      status: p.status,
      publishedAt: p.status === 'draft' ? null : at(p.daysAgo),
      ...stamps(at(p.daysAgo + 1)),
    })),
    report,
  );

  const published = POSTS.filter((p) => p.status === 'published');
  await upsertAll(
    connection,
    'comments',
    Array.from({ length: 30 }, (_, i) => {
      const post = published[i % published.length]!;
      const student = studentInfo[(i * 3) % studentInfo.length]!;
      const text = COMMENT_TEXTS[i % COMMENT_TEXTS.length]!;
      return {
        _id: seedId(`comment:${i}`),
        postId: seedId(`post:${post.key}`),
        authorName: String(students[(i * 3) % students.length]!.name),
        authorEmail: student.email,
        body: text,
        status: text.includes('spam') ? 'spam' : i % 6 === 5 ? 'pending' : 'approved',
        ...stamps(at(Math.max(0, post.daysAgo - 1 - (i % 5)), 8 + (i % 12))),
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
  await upsertAll(
    connection,
    'digital_products',
    PRODUCTS.map((p, i) => ({
      _id: seedId(`product:${p.key}`),
      title: p.title,
      slug: p.key,
      description: `${p.title} for home bakers.`,
      priceCents: p.priceCents,
      currency: 'USD',
      fileIds: p.file ? [seedId(`file:${p.key}`)] : [],
      imageUrl: null,
      status: p.status,
      ...stamps(at(120 - i * 10)),
    })),
    report,
  );

  const submissions: Doc[] = [];
  const formDocs = FORMS.map((f, i) => {
    const count = f.key === 'newsletter' ? 25 : f.key === 'contact' ? 8 : 12;
    for (let n = 0; n < count; n++) {
      const s = studentInfo[(n * 5 + i) % studentInfo.length]!;
      const values: Record<string, string> =
        f.key === 'newsletter'
          ? { email: s.email, level: rnd.pick(['beginner', 'intermediate', 'advanced']) }
          : f.key === 'contact'
            ? {
                name: String(students[(n * 5 + i) % students.length]!.name),
                email: s.email,
                message: 'Do you offer gift cards?',
              }
            : {
                rating: String(rnd.int(3, 5)),
                comments: rnd.pick(['Loved it', 'Too short', 'More shaping please', '']),
              };
      submissions.push({
        _id: seedId(`submission:${f.key}:${n}`),
        formId: seedId(`form:${f.key}`),
        email: values.email ?? null,
        values,
        submittedAt: at(rnd.int(0, 90), 7 + (n % 14)),
        ...stamps(at(0)),
      });
    }
    return {
      _id: seedId(`form:${f.key}`),
      title: f.title,
      slug: f.key,
      description: `${f.title} form on the school site.`,
      fields: f.fields.map((x) => ({ ...x, options: [...x.options] })),
      status: f.status,
      submissionsCount: count,
      ...stamps(at(180 - i * 30)),
    };
  });
  await upsertAll(connection, 'forms', formDocs, report);
  await upsertAll(connection, 'form_submissions', submissions, report);

  await upsertAll(
    connection,
    'pages',
    PAGES.map((p, i) => ({
      _id: seedId(`page:${p.key}`),
      title: p.title,
      slug: p.key,
      body: p.body,
      seoTitle: p.title,
      seoDescription: null,
      status: p.status,
      publishedAt: p.status === 'published' ? at(300 - i) : null,
      ...stamps(at(301 - i)),
    })),
    report,
  );

  return report;
}
