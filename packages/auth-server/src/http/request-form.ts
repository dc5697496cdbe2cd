/**
 * The request's form (`application/x-www-form-urlencoded`), parsed once per request and shared by
 * every step before oidc-provider that reads a parameter (the rate limiter's client id, the client
 * authentication checks). Each used to check the content type and parse the body on its own; on the
 * introspection route that was the same work two times over, before every answer.
 */
import { PROVIDER_BODY_LIMIT } from '@school/shared';
import type { Context } from 'koa';
import { peekBody } from './peek-body.js';

const FORM = Symbol('request-form');
type Parsed = URLSearchParams | 'too_large' | 'not_a_form';
type WithForm = { [FORM]?: Promise<Parsed> };

async function parse(ctx: Context, limit: number): Promise<Parsed> {
  if (!ctx.is('application/x-www-form-urlencoded')) return 'not_a_form';
  const body = await peekBody(ctx, limit);
  return body === 'too_large' ? body : new URLSearchParams(body.toString('utf8'));
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
