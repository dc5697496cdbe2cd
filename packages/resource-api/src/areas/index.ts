/**
 * The registry: every area of the platform, in the contract's order (the order of `AREAS`). Routes, scope
 * checks, the OpenAPI document, auth.md, docs/areas.md's table and the contract test all read this list.
 * Adding an area is one file and one line here.
 */
import type { AreaModule } from '../lib/operation.js';
import account from './account.area.js';
import analytics from './analytics.area.js';
import appearance from './appearance.area.js';
import comments from './comments.area.js';
import coupons from './coupons.area.js';
import courses from './courses.area.js';
import curriculum from './curriculum.area.js';
import digitalProducts from './digital-products.area.js';
import events from './events.area.js';
import forms from './forms.area.js';
import lecturers from './lecturers.area.js';
import members from './members.area.js';
import membershipPlans from './membership-plans.area.js';
import orders from './orders.area.js';
import pages from './pages.area.js';
import posts from './posts.area.js';
import school from './school.area.js';
import storage from './storage.area.js';
import students from './students.area.js';
import subscriptions from './subscriptions.area.js';

/** All areas. */
export const REGISTRY: readonly AreaModule[] = [
  courses,
  students,
  members,
  analytics,
  curriculum,
  orders,
  school,
  appearance,
  events,
  membershipPlans,
  coupons,
  posts,
  subscriptions,
  digitalProducts,
  comments,
  lecturers,
  storage,
  forms,
  pages,
  account,
];
