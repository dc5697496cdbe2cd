import { Provider } from 'oidc-provider';
import type { Logger } from '../logger.js';
import { buildConfiguration, type ProviderDeps } from './configuration.js';
import { explainErrorsToDevelopers } from './developer-errors.js';
import { refuseBoundClientsWithoutProof } from './dpop-bound-clients.js';
import { formPostCsp } from './form-post-csp.js';
import { mintTokenIdsByGrant } from './grant-token-ids.js';
import { inactiveForUnsupportedTokens } from './introspection-shapes.js';
import { providerCorrections } from './post-middleware.js';
import { scopeUseFromIntrospection } from './scope-use.js';

/** Builds the oidc-provider instance; bad configuration throws here, at start-up. */
export function createProvider(deps: ProviderDeps, logger: Logger): Provider {
  const provider = new Provider(deps.config.BASE_URL, buildConfiguration(deps));
  provider.proxy = deps.config.TRUST_PROXY;
  mintTokenIdsByGrant(provider);
  provider.use(providerCorrections);
  provider.use(inactiveForUnsupportedTokens);
  provider.use(formPostCsp);
  if (deps.grantIndex)
    provider.use(
      scopeUseFromIntrospection({
        ...deps.grantIndex,
        grantTtlSeconds: deps.config.GRANT_TTL,
        introspectionClientId: deps.config.INTROSPECTION_CLIENT_ID,
      }),
    );
  explainErrorsToDevelopers(provider);
  refuseBoundClientsWithoutProof(provider);
  provider.on('server_error', (ctx, err) => {
    logger.error({ err, path: ctx.path, method: ctx.method }, 'oidc-provider server_error');
  });
  return provider;
}
