/**
 * When Redis cannot be reached, every endpoint that needs storage answers 503
 * `temporarily_unavailable` (RFC 6749 §4.1.2.1 names the code) instead of a 500, and recovers by
 * itself once Redis is back: ioredis keeps reconnecting, and the client is configured to fail a
 * command at once while disconnected (`enableOfflineQueue: false`) rather than hold requests.
 *
 * Applied as a wrapper around the adapter class, so storage code stays about storage.
 */
import { errors, type Adapter, type AdapterPayload } from 'oidc-provider';
import type { AdapterConstructor } from '../storage/redis-adapter.js';

/** 503 `temporarily_unavailable`: the storage behind the authorization server is unreachable. */
export class StorageUnavailable extends errors.TemporarilyUnavailable {
  constructor(cause?: unknown) {
    super('the authorization server cannot reach its storage; try again shortly', { cause });
    this.status = 503;
    this.statusCode = 503;
    this.expose = true;
    this.error_description = 'the authorization server cannot reach its storage; try again shortly';
  }
}

const translate = (err: unknown): never => {
  if (err instanceof errors.OIDCProviderError) throw err;
  throw new StorageUnavailable(err);
};

/** Wraps an adapter class so storage failures become {@link StorageUnavailable}. */
export function withOutageErrors(Base: AdapterConstructor): AdapterConstructor {
  return class OutageAwareAdapter implements Adapter {
    private readonly inner: Adapter;
    constructor(name: string) {
      this.inner = new Base(name);
    }
    upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      return this.inner.upsert(id, payload, expiresIn).catch(translate);
    }
    find(id: string): Promise<AdapterPayload | undefined | void> {
      return this.inner.find(id).catch(translate);
    }
    findByUid(uid: string): Promise<AdapterPayload | undefined | void> {
      return this.inner.findByUid(uid).catch(translate);
    }
    findByUserCode(userCode: string): Promise<AdapterPayload | undefined | void> {
      return this.inner.findByUserCode(userCode).catch(translate);
    }
    consume(id: string): Promise<void> {
      return this.inner.consume(id).catch(translate);
    }
    destroy(id: string): Promise<void> {
      return this.inner.destroy(id).catch(translate);
    }
    revokeByGrantId(grantId: string): Promise<void> {
      return this.inner.revokeByGrantId(grantId).catch(translate);
    }
  };
}
