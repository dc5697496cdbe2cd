/**
 * The README's curl walkthrough, run as a newcomer runs it: every ```sh walkthrough block of README.md,
 * in order, in one bash (set -euo pipefail: a failing command or an unset variable fails the test),
 * against a real stack through the nginx edge. Only `BASE` and `PORT` are changed to the stack's edge
 * and a free port, and `.data/secrets.env` of the working directory holds the stack's introspection
 * secret, as scripts/start writes it. Where the README says "open the URL in a browser", headless
 * Chromium signs the admin in and clicks Allow. Each step's outcome is checked, also from outside.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser } from 'playwright-core';
import { freePort, pollUntil, portAccepts, startProcess } from '../test-support/processes.js';
import { launchBrowser } from './support/browser.js';
import { apiStatus as courseStatus } from './support/edge-flows.js';
import { ShellSession } from './support/shell-session.js';
import { E2E_ADMIN, startStack, type Stack } from './support/stack.js';

const README = readFileSync(resolve(import.meta.dirname, '../README.md'), 'utf8');

/** The walkthrough's blocks, in order: the fences whose info string is `sh walkthrough`. */
function walkthroughBlocks(): string[] {
  return [...README.matchAll(/^```sh walkthrough\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

/** The README's openid-client snippet: its one ```ts block. */
function openidClientSnippet(): string {
  const blocks = [...README.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
  expect(blocks).toHaveLength(1);
  return blocks[0]!;
}

/** `block` with the whole line `NAME=value` (which must be there) set to `NAME=replacement`. */
function setLine(block: string, name: string, value: string, replacement: string): string {
  const line = `${name}=${value}`;
  expect(block.split('\n')).toContain(line);
  return block.replace(line, `${name}=${replacement}`);
}

let stack: Stack;
let browser: Browser;
let shell: ShellSession;
let work: string;
let port: number;

beforeAll(async () => {
  [stack, browser, port] = await Promise.all([startStack(), launchBrowser(), freePort()]);
  work = mkdtempSync(join(tmpdir(), 'readme-walkthrough-'));
  mkdirSync(join(work, '.data'));
  writeFileSync(
    join(work, '.data/secrets.env'),
    `COOKIE_SECRETS=not-this-one\nINTROSPECTION_CLIENT_SECRET=${stack.env.INTROSPECTION_CLIENT_SECRET}\n`,
  );
  const path = `${dirname(process.execPath)}:${process.env.PATH ?? ''}`;
  shell = new ShellSession(work, { PATH: path, HOME: work, LANG: 'C.UTF-8' });
}, 90_000);
afterAll(async () => {
  await shell?.close();
  await browser?.close();
  await stack?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Introspects `token` with the resource API's credentials, from outside the walkthrough. */
/** The admin signs in at `url` in Chromium and allows; the listener's page says it is done. */
async function allowInBrowser(url: URL): Promise<void> {
  const page = await browser.newPage();
  await page.goto(url.href);
  await page.fill('input[name=email]', E2E_ADMIN.email);
  await page.fill('input[name=password]', E2E_ADMIN.password);
  await page.click('button[type=submit]');
  await page.click('button:has-text("Allow")');
  await page.waitForSelector('text=Done: go back to the terminal.');
  await page.close();
}

async function introspect(token: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${stack.baseUrl}/api/oauth/introspect`, {
    method: 'POST',
    body: new URLSearchParams({
      token,
      client_id: 'resource-api',
      client_secret: stack.env.INTROSPECTION_CLIENT_SECRET!,
    }),
  });
  return (await res.json()) as Record<string, unknown>;
}

/** The status the API answers `token` with at /api/v1/courses. */
const apiStatus = (token: string) => courseStatus(stack, token);

describe('the README curl walkthrough, pasted block by block', () => {
  it('registers, authorizes in a browser, gets a bound token the API accepts, refreshes, introspects and revokes', async () => {
    const blocks = walkthroughBlocks();
    expect(blocks).toHaveLength(9);
    const [discover, register, authorize, callback, exchange, use, refresh, introspection, revoke] = blocks;

    // 0. Discover, at the stack's edge instead of :8080.
    const metadata = JSON.parse(
      await shell.run(setLine(discover!, 'BASE', 'http://127.0.0.1:8080', stack.baseUrl)),
    ) as Record<string, string>;
    expect(metadata.issuer).toBe(stack.baseUrl);
    expect(metadata.registration_endpoint).toBe(`${stack.baseUrl}/api/oauth/register`);

    // 1. Register: a client_id is captured.
    await shell.run(setLine(register!, 'PORT', '8765', String(port)));
    const clientId = await shell.value('CLIENT_ID');
    expect(clientId).toMatch(/^[\w-]{20,}$/);

    // 2. The authorization URL: PKCE S256 of the captured verifier, state, resource on it.
    const url = new URL(await shell.run(authorize!));
    const verifier = await shell.value('VERIFIER');
    expect(verifier).toMatch(/^[\w-]{43,128}$/);
    expect(`${url.origin}${url.pathname}`).toBe(`${stack.baseUrl}/oauth/authorize`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: clientId,
      redirect_uri: `http://127.0.0.1:${port}/callback`,
      scope: 'openid profile email courses:read',
      state: await shell.value('STATE'),
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      response_type: 'code',
      resource: stack.baseUrl,
    });

    // 3. The listener waits while the admin signs in and clicks Allow in a browser.
    const received = shell.run(callback!);
    received.catch(() => undefined); // awaited below, after the browser step
    try {
      const deadline = Date.now() + 20_000;
      while (!(await portAccepts(port)) && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 100));
      await allowInBrowser(url);
    } finally {
      // Whatever happened in the browser, the listener gets its one request and the shell goes on.
      if (await portAccepts(port))
        await fetch(`http://127.0.0.1:${port}/callback?error=test_gave_up`).catch(() => {});
    }
    expect((await received).split('\n').at(-1)).toBe('state and iss match');
    expect(await shell.value('CODE')).toMatch(/^[\w-]{20,}$/);

    // 4. The code exchange: an access token bound to the API, which the API accepts, and a refresh token.
    await shell.run(exchange!);
    const accessToken = await shell.value('ACCESS_TOKEN');
    const refreshToken = await shell.value('REFRESH_TOKEN');
    expect(accessToken).toMatch(/^[\w-]{20,}$/);
    expect(refreshToken).toMatch(/^[\w-]{20,}$/);
    expect(await introspect(accessToken)).toMatchObject({
      active: true,
      aud: stack.baseUrl,
      client_id: clientId,
    });
    expect(await apiStatus(accessToken)).toBe(200);

    // 5. The API call prints the first course.
    const used = JSON.parse(await shell.run(use!)) as { first: unknown };
    expect(used.first).toEqual(expect.objectContaining({ id: expect.any(String) }));

    // 6. Refresh: new tokens, the rotated refresh token kept; the new access token works.
    await shell.run(refresh!);
    const rotated = await shell.value('REFRESH_TOKEN');
    const renewed = await shell.value('ACCESS_TOKEN');
    expect(rotated).toMatch(/^[\w-]{20,}$/);
    expect(rotated).not.toBe(refreshToken);
    expect(renewed).not.toBe(accessToken);
    expect(await apiStatus(renewed)).toBe(200);

    // 7. Introspection with the secret read from .data/secrets.env.
    const introspected = await shell.run(introspection!);
    expect(JSON.parse(introspected)).toEqual({
      active: true,
      client_id: clientId,
      scope: 'courses:read',
      aud: stack.baseUrl,
    });

    // 8. Revoke: 200, then the access token is inactive and the API refuses it.
    expect((await shell.run(revoke!)).split('\n')).toEqual(['revoke: 200', '{"active":false}', 'API: 401']);
    expect(await introspect(renewed)).toEqual({ active: false });
    expect(await apiStatus(renewed)).toBe(401);
  }, 120_000);
});

describe('the README openid-client snippet, saved and run as written', () => {
  it('registers, prints the URL, gets the code on its listener, calls the API, refreshes and revokes', async () => {
    const snippetPort = await freePort();
    const snippet = openidClientSnippet()
      .replaceAll('http://127.0.0.1:8080', stack.baseUrl)
      .replaceAll('8765', String(snippetPort));
    // Saved at the repository root, as the README says, so that `openid-client` resolves.
    const file = resolve(import.meta.dirname, `../client-${process.pid}.mts`);
    writeFileSync(file, snippet);
    const run = startProcess('readme-client', process.execPath, [file], {
      cwd: resolve(import.meta.dirname, '..'),
    });
    try {
      await pollUntil(() => /^http\S+$/m.test(run.tail()), 'the printed authorization URL', 20_000);
      const url = new URL(/^(http\S+)$/m.exec(run.tail())![1]!);
      expect(url.searchParams.get('resource')).toBe(stack.baseUrl);
      expect(url.searchParams.get('code_challenge_method')).toBe('S256');
      await allowInBrowser(url);
      await pollUntil(() => /^revoked$/m.test(run.tail()), 'the snippet to finish', 20_000);
      expect(run.tail()).toMatch(/^API 200$/m);
    } finally {
      await run.stop();
      rmSync(file, { force: true });
    }
  }, 90_000);
});
