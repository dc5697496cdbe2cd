/**
 * The request's form (`application/x-www-form-urlencoded`), parsed once per request and shared by
 * every step before oidc-provider that reads a parameter (the rate limiter's client id, the client
 * authentication checks, the direct introspection step).
 *
 * A body of plain pairs only (`name=value`, both of characters that need no decoding) is split as
 * it is; whether a form was one is remembered ({@link isPlainForm}), for the steps that answer only
 * such requests, so no two parsers can read them differently. Any other body goes to
 * `URLSearchParams`.
 */
import { PROVIDER_BODY_LIMIT } from '@school/shared';
import type { Context } from 'koa';
import { peekBody } from './peek-body.js';

const FORM = Symbol('request-form');
type Parsed = URLSearchParams | 'too_large' | 'not_a_form';
type WithForm = { [FORM]?: Promise<Parsed> };

/** A pair with nothing to decode: every form parser reads it the same. */
const PLAIN_PAIR = /^[A-Za-z0-9._~:-]+=[A-Za-z0-9._~:-]+$/;
/** The forms that were plain pairs only. */
const plainForms = new WeakSet<URLSearchParams>();

/** The body's pairs when every one is plain; undefined otherwise. */
function plainPairs(text: string): Array<[string, string]> | undefined {
  const pairs: Array<[string, string]> = [];
  for (const pair of text.split('&')) {
    if (!PLAIN_PAIR.test(pair)) return undefined;
    const at = pair.indexOf('=');
    pairs.push([pair.slice(0, at), pair.slice(at + 1)]);
  }
  return pairs;
}

async function parse(ctx: Context, limit: number): Promise<Parsed> {
  if (!ctx.is('application/x-www-form-urlencoded')) return 'not_a_form';
  const body = await peekBody(ctx, limit);
  if (body === 'too_large') return body;
  const text = body.toString('latin1');
  const pairs = plainPairs(text);
  if (!pairs) return new URLSearchParams(body.toString('utf8'));
  const form = new URLSearchParams(pairs);
  plainForms.add(form);
  return form;
}

/** Whether `form` was made of plain pairs only (`name=value`, nothing to decode, none empty). */
export function isPlainForm(form: URLSearchParams): boolean {
  return plainForms.has(form);
}

/**
 * The request's form parameters; 'too_large' for a body over `limit` (by default oidc-provider's own,
 * over which it answers 413), 'not_a_form' for another content type. The first call reads the body;
 * later calls share its result. The parameters are read-only by convention: every step sees the same
 * object.
 */
export function requestForm(ctx: Context, limit = PROVIDER_BODY_LIMIT): Promise<Parsed> {
  return ((ctx as unknown as WithForm)[FORM] ??= parse(ctx, limit));
}
