/**
 * A local agent's OAuthClientProvider for the MCP TypeScript SDK's `auth()`, unmodified: it keeps in
 * memory what `auth()` saves and catches the redirect on a loopback listener. {@link SdkAgent} is for
 * `@modelcontextprotocol/sdk` 1.x, {@link ClientAgent} for `@modelcontextprotocol/client` 2.x, which
 * also keeps the discovery state between calls.
 */
import type {
  OAuthDiscoveryState,
  OAuthClientProvider as ClientProvider,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import type { OAuthClientProvider as SdkProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { LoopbackListener } from './browser.js';

/** The registration fields besides the name and the redirect URI. */
export interface AgentFields {
  grant_types?: string[];
  response_types?: string[];
  token_endpoint_auth_method: string;
}

/** A public client using the code flow and refresh tokens. */
export const PUBLIC_CODE_CLIENT: AgentFields = {
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
};

class MemoryAgent<Info, Tokens> {
  authorizationUrl?: URL;
  /** The loopback listener of the authorization under way. */
  listener!: LoopbackListener;
  private info?: Info;
  private saved?: Tokens;
  private verifier = '';
  constructor(
    private readonly clientName: string,
    listener?: LoopbackListener,
    private readonly fields: AgentFields = PUBLIC_CODE_CLIENT,
  ) {
    if (listener) this.listener = listener;
  }
  get redirectUrl() {
    return this.listener.redirectUri;
  }
  get clientMetadata() {
    return { client_name: this.clientName, redirect_uris: [this.listener.redirectUri], ...this.fields };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: Info) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: Tokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** For `@modelcontextprotocol/sdk` 1.x; keeps no discovery state. */
export class SdkAgent extends MemoryAgent<OAuthClientInformationMixed, OAuthTokens> implements SdkProvider {}

/** For `@modelcontextprotocol/client` 2.x. */
export class ClientAgent
  extends MemoryAgent<StoredOAuthClientInformation, StoredOAuthTokens>
  implements ClientProvider
{
  private discovery?: OAuthDiscoveryState;
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
}
