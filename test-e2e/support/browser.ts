/**
 * Debian's Chromium driven by playwright-core (no browser download), the check every page of ours
 * gets in it ({@link inspectPage}), the loopback listener a native app or CLI opens to catch the
 * authorization redirect, and the admin approving an authorization in a fresh browser context
 * ({@link approveInBrowser}).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { expect } from '@jest/globals';
import { chromium, type Browser, type BrowserContextOptions, type Page } from 'playwright-core';
import { E2E_ADMIN, type Stack } from './stack.js';

/** Where screenshots are saved as test artifacts. */
export const ARTIFACTS = resolve(import.meta.dirname, '../../test-results');

/** Launches headless Chromium with the flags this sandbox needs. */
export async function launchBrowser(): Promise<Browser> {
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ], // playwright gives every launch a new, empty profile directory
  });
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * Photographs `page` at 1280 and 390 px as `<name>-1280.png` and `<name>-390.png` in {@link ARTIFACTS},
 * asserts that nothing scrolls sideways at 390 px and that axe-core finds no serious or critical
 * violation; leaves the page at 1280 px.
 */
export async function inspectPage(page: Page, name: string): Promise<void> {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: join(ARTIFACTS, `${name}-${width}.png`), fullPage: true });
  }
  const scrollWidth = await page.evaluate('document.documentElement.scrollWidth');
  expect(scrollWidth).toBeLessThanOrEqual(390);
  await page.evaluate(AXE_SOURCE); // evaluated by the browser's debugger: the page's CSP forbids scripts
  const violations = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as { axe: { run(): Promise<{ violations: { id: string; impact: string }[] }> } }
    ).axe;
    return (await axe.run()).violations.map((v) => `${v.impact}: ${v.id}`);
  });
  expect(violations.filter((v) => /^(serious|critical)/.test(v))).toEqual([]);
  await page.setViewportSize({ width: 1280, height: 900 });
}

/** Asserts that axe-core finds no violation at all, of any impact, at 1280 and at 390 px. */
export async function expectNoAxeViolations(page: Page): Promise<void> {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await page.evaluate(AXE_SOURCE);
    const violations = await page.evaluate(async () => {
      const axe = (
        globalThis as unknown as { axe: { run(): Promise<{ violations: { id: string; impact: string }[] }> } }
      ).axe;
      return (await axe.run()).violations.map((v) => `${v.impact}: ${v.id}`);
    });
    expect([width, violations]).toEqual([width, []]);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

/**
 * Ticks every scope on the consent page open in `page`: the admin allowing all that was asked (an
 * app nobody vouched for starts with its write scopes unticked).
 */
export async function tickEveryScope(page: Page): Promise<void> {
  for (const box of await page.locator('input[name=scope]').all()) await box.check();
}

/** A loopback HTTP listener on a random port that records the first redirect it receives. */
export interface LoopbackListener {
  redirectUri: string;
  port: number;
  /**
   * Resolves with the full URL of the first request to the callback path; for a form_post callback
   * (a POST), the form's fields are in its query, as if they had come by redirect.
   */
  received: Promise<URL>;
  /** The HTTP method of that first callback request (GET for a redirect, POST for form_post). */
  receivedMethod: Promise<string>;
  close(): Promise<void>;
}

/** Opens the listener, as a CLI does before starting the authorization. */
export async function loopbackListener(path = '/callback'): Promise<LoopbackListener> {
  let resolveReceived!: (u: URL) => void;
  const received = new Promise<URL>((r) => (resolveReceived = r));
  let resolveMethod!: (m: string) => void;
  const receivedMethod = new Promise<string>((r) => (resolveMethod = r));
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    if (url.pathname !== path) {
      res.writeHead(404).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method === 'POST') {
        for (const [name, value] of new URLSearchParams(Buffer.concat(chunks).toString('utf8'))) {
          url.searchParams.append(name, value);
        }
      }
      res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>You can close this window.</h1>');
      resolveMethod(req.method ?? 'GET');
      resolveReceived(url);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    redirectUri: `http://127.0.0.1:${port}${path}`,
    port,
    received,
    receivedMethod,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

/**
 * The admin signs in and allows the authorization at `url` in a new context of `browser` (made with
 * `contextOptions`); resolves with the consent page's text and the URL `listener` received.
 */
export async function approveInBrowser(
  browser: Browser,
  url: string,
  listener: Pick<LoopbackListener, 'received'>,
  contextOptions: BrowserContextOptions = {},
): Promise<{ consent: string; callback: URL }> {
  const context = await browser.newContext(contextOptions);
  try {
    const page = await context.newPage();
    await page.goto(url);
    await page.fill('input[name=email]', E2E_ADMIN.email);
    await page.fill('input[name=password]', E2E_ADMIN.password);
    await page.click('button[type=submit]');
    const consent = await page.locator('main, body').first().innerText();
    await page.click('button:has-text("Allow")');
    return { consent, callback: await listener.received };
  } finally {
    await context.close();
  }
}

/** Registers a native app named `name` returning to `listener`, through the stack's edge; its client id. */
export async function registerNativeApp(
  stack: Pick<Stack, 'edgeUrl'>,
  name: string,
  listener: Pick<LoopbackListener, 'redirectUri'>,
): Promise<string> {
  const res = await fetch(`${stack.edgeUrl}/api/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: name,
      application_type: 'native',
      redirect_uris: [listener.redirectUri],
    }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { client_id: string }).client_id;
}
