/**
 * A hosted connector's refreshes through the edge: the auth server reads each request's address from
 * the X-Forwarded-For the edge writes, so the two workers of a connector (a metadata-document client
 * an operator allowed its fixed https callback) refreshing one token in parallel from 127.0.0.2 and
 * 127.0.0.3 are seen as two addresses. Both get working tokens and the grant lives on; a token a
 * generation older presented from a third address then ends the grant, which shows the server judged
 * the forwarded addresses, not the edge's own.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { postFormFrom, type AnswerFrom } from '../test-support/from-address.js';
import { obtainCode } from '../test-support/oauth-flow.js';
import type { DocumentServer } from '../test-support/https-documents.js';
import { startDocumentStack, stopDocumentStack } from './support/document-stack.js';
import { E2E_ADMIN, schoolAuth, type Stack } from './support/stack.js';

let stack: Stack;
let docs: DocumentServer;

beforeAll(async () => {
  ({ docs, stack } = await startDocumentStack());
}, 90_000);
afterAll(() => stopDocumentStack({ docs, stack }));

interface Tokens {
  access_token: string;
  refresh_token: string;
}

const courses = (token: string) =>
  fetch(`${stack.baseUrl}/api/v1/courses`, { headers: { authorization: `Bearer ${token}` } });

const tokensOf = (res: AnswerFrom): Tokens => {
  expect({ status: res.status, error: res.body.error_description }).toEqual({
    status: 200,
    error: undefined,
  });
  return res.body as unknown as Tokens;
};

describe('a hosted connector through the edge', () => {
  it("keeps its grant through its workers' parallel refreshes from two addresses", async () => {
    const callback = 'https://assistant.example/api/mcp/auth_callback';
    const { clientId } = docs.publish(
      { client_name: 'Assistant connector', redirect_uris: [callback] },
      { dir: 'connectors', maxAge: 300 },
    );
    schoolAuth(stack, ['clients', 'allow-cimd', clientId]);
    // The form browser stops at the redirect to the app: nothing here connects to the callback's host.
    const issued = await obtainCode(
      { issuer: stack.baseUrl },
      { clientId },
      {
        scope: 'openid courses:read',
        account: E2E_ADMIN,
        resource: stack.baseUrl,
        redirectUri: callback,
      },
    );

    const form = (extra: Record<string, string>) => ({
      client_id: clientId,
      resource: stack.baseUrl,
      ...extra,
    });
    const first = tokensOf(
      await postFormFrom(
        stack.edgeUrl,
        '127.0.0.2',
        '/api/oauth/token',
        form({
          grant_type: 'authorization_code',
          code: issued.code,
          redirect_uri: callback,
          code_verifier: issued.verifier,
        }),
      ),
    );
    const refresh = (from: string, token: string) =>
      postFormFrom(
        stack.edgeUrl,
        from,
        '/api/oauth/token',
        form({ grant_type: 'refresh_token', refresh_token: token }),
      );

    const [a, b] = (
      await Promise.all([
        refresh('127.0.0.2', first.refresh_token),
        refresh('127.0.0.3', first.refresh_token),
      ])
    ).map(tokensOf);
    expect(a!.refresh_token).toBe(b!.refresh_token);
    expect((await courses(a!.access_token)).status).toBe(200);
    expect((await courses(b!.access_token)).status).toBe(200);
    const next = tokensOf(await refresh('127.0.0.3', a!.refresh_token));
    expect((await courses(next.access_token)).status).toBe(200);

    // A generation older, from a third address: theft, and the grant ends.
    const stolen = await refresh('127.0.0.4', first.refresh_token);
    expect({ status: stolen.status, error: stolen.body.error }).toEqual({
      status: 400,
      error: 'invalid_grant',
    });
    expect((await courses(next.access_token)).status).toBe(401);
  });
});
