/**
 * The body cap of an endpoint (the endpoint table's `body`): a body over it is refused with 413
 * before anything is counted or parsed further. The body is read once, bounded, and left for the
 * steps after this one and for oidc-provider (peek-body.ts, request-form.ts).
 */
import { OAuthError, RequestTooLargeError, type BodyCap } from '@school/shared';
import type { Middleware } from 'koa';
import { peekBody } from './peek-body.js';
import { requestForm } from './request-form.js';

/** The step refusing a POST body over `cap`. */
export function bodyCap(cap: BodyCap): Middleware {
  const tooLarge = () =>
    cap.tooLargeCode === 'invalid_client_metadata'
      ? // RFC 7591's code: a registration client reads invalid_client_metadata (so does the edge's 413).
        new OAuthError(
          413,
          'invalid_client_metadata',
          `registration bodies are limited to ${cap.bytes} bytes`,
        )
      : new RequestTooLargeError(cap.bytes);
  if (cap.media === 'json')
    return async function capBody(ctx, next) {
      if (ctx.method === 'POST' && (await peekBody(ctx, cap.bytes)) === 'too_large') throw tooLarge();
      await next();
      return;
    };
  return async function capForm(ctx, next) {
    // Not a form: oidc-provider answers it (400).
    if (ctx.method === 'POST' && (await requestForm(ctx, cap.bytes)) === 'too_large') throw tooLarge();
    await next();
    return;
  };
}
