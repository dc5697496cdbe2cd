/**
 * `429 too_many_requests` raised inside oidc-provider (from the adapter, while it loads a client), in
 * the shape every other limit answers (`@school/shared`'s error table): oidc-provider renders an
 * `OIDCProviderError` as JSON on the API routes and as our error page on the browser ones. The caller
 * sets `Retry-After` on the answer (oidc-provider keeps headers set before it renders an error).
 */
import { errors } from 'oidc-provider';

/** A request refused by a limit counted inside oidc-provider. */
export class TooManyRequests extends errors.OIDCProviderError {
  constructor(
    description: string,
    readonly retryAfterSeconds: number,
  ) {
    super(429, 'too_many_requests');
    this.error_description = description;
  }
}

/** Throws {@link TooManyRequests}, with `Retry-After` on the answer of `ctx` when there is one. */
export function refuseTooMany(
  ctx: { set?: (name: string, value: string) => void } | undefined,
  description: string,
  retryAfterSeconds: number,
): never {
  ctx?.set?.('Retry-After', String(retryAfterSeconds));
  throw new TooManyRequests(description, retryAfterSeconds);
}
