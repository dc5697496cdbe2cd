/**
 * DPoP proof replay across every API instance (RFC 9449 §11.1): a proof's `jti` is recorded in Redis
 * with SET NX for twice the `iat` window (a proof older than that is refused by its `iat` anyway), so
 * exactly one request in the deployment accepts a given proof. Keyed by a hash of the key thumbprint
 * and the `jti`, so one client's ids cannot collide with another's. Only calls of DPoP-bound tokens get
 * here: plain bearer calls cost no Redis command.
 */
import { hash } from 'node:crypto';
import { DPOP_PROOF_WINDOW_SECONDS, type RedisClient } from '@school/shared';
import type { ProofFirstSeen } from './dpop-proof.js';

/** The replay check on `redis`, under the deployment's key prefix. */
export function proofsSeenIn(redis: RedisClient, prefix: string): ProofFirstSeen {
  const seconds = 2 * DPOP_PROOF_WINDOW_SECONDS;
  return async (jkt, jti) => {
    const key = `${prefix}dpopProof:${hash('sha256', `${jkt}.${jti}`, 'base64url')}`;
    return (await redis.set(key, '1', 'EX', seconds, 'NX')) === 'OK';
  };
}
