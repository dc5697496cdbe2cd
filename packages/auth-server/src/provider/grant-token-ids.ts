/**
 * Token ids that name their grant's hash slot (redis-keys.ts, the slot rule).
 *
 * oidc-provider mints an opaque token's id (its value) at random. For a Redis Cluster, a token must
 * live in its grant's slot, and its key must be found from the presented value alone; so the
 * grant-bound models (codes, access and refresh tokens) get ids that start with their grant's tag
 * (the first 12 characters of the grant id) followed by oidc-provider's own random id, whose
 * entropy is unchanged (256 bits). The tag is not a secret: grant ids are random, carry no
 * personal data, and a token's value still cannot be guessed from it.
 */
import type { Provider } from 'oidc-provider';
import { grantTag } from '../storage/redis-keys.js';

type Minting = { prototype: { generateTokenId: (this: { grantId?: string }) => string } };

/** Makes `provider`'s grant-bound token ids start with their grant's tag. */
export function mintTokenIdsByGrant(provider: Provider): void {
  const models = provider as unknown as Record<string, Minting>;
  for (const name of ['AccessToken', 'AuthorizationCode', 'RefreshToken']) {
    const proto = models[name]!.prototype;
    const random = proto.generateTokenId;
    proto.generateTokenId = function (this: { grantId?: string }) {
      const id = random.call(this);
      return this.grantId ? grantTag(this.grantId) + id : id;
    };
  }
}
