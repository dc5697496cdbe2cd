/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned), unmodified, run as
 * a process against the stack through the edge: `conformance authorization` and every one of its
 * authorization-server scenarios, the metadata endpoint and the authorization code grant with PKCE.
 *
 * The code-grant scenario takes a client id registered beforehand (it registers nothing itself), so
 * the client is what an MCP client would register: a public client through open registration, with
 * the suite's loopback callback as its redirect URI. The scenario prints an authorization URL for a
 * person to open, without `scope`, and waits for the redirect on its own loopback listener; here the
 * admin opens it in Chromium, signs in and allows, and the suite redeems the code itself.
 */
import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { register } from '../test-support/oauth-flow.js';
import { freePort, pollUntil, startProcess } from '../test-support/processes.js';
import { E2E_ADMIN, type Stack } from './support/stack.js';
import { stackAndBrowserForFile } from './support/suite.js';

const ROOT = resolve(import.meta.dirname, '..');
/** The suite's command, as `npx conformance` runs it. */
const CONFORMANCE = join(
  createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/package.json'),
  '../dist/index.js',
);
/** The scenarios `conformance authorization` runs when none is named. */
const SCENARIOS = ['authorization-server-metadata-endpoint', 'authorization-code-grant'];

let stack: Stack;
let browser: Browser;

stackAndBrowserForFile((s, b) => {
  stack = s;
  browser = b;
});

/** One check of the suite's result files (`checks.json`). */
interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

/** The checks the suite wrote under `dir`, by scenario (its directories are `<prefix>-<scenario>-<time>`). */
function resultsIn(dir: string): Record<string, Check[]> {
  const results: Record<string, Check[]> = {};
  for (const entry of readdirSync(dir)) {
    const scenario = SCENARIOS.find((name) => entry.startsWith(`authorization-server-${name}-`));
    if (!scenario) throw new Error(`unexpected result directory ${entry}`);
    results[scenario] = JSON.parse(readFileSync(join(dir, entry, 'checks.json'), 'utf8')) as Check[];
  }
  return results;
}

/**
 * The admin opens `url` in a new context of the browser, signs in and allows; resolves with the
 * consent page's text once the browser has reached `redirectUri` (the suite's listener).
 */
async function signInAndAllow(url: string, redirectUri: string): Promise<string> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(url);
    // An error goes straight back to the suite's listener, without any page of ours.
    if (page.url().startsWith(redirectUri)) throw new Error(`redirected without signing in: ${page.url()}`);
    await page.fill('input[name=email]', E2E_ADMIN.email);
    await page.fill('input[name=password]', E2E_ADMIN.password);
    await page.click('button[type=submit]');
    const consent = await page.locator('main').first().innerText();
    await Promise.all([
      page.waitForURL((u) => u.href.startsWith(`${redirectUri}?`)),
      page.click('button:has-text("Allow")'),
    ]);
    return consent;
  } finally {
    await context.close();
  }
}

describe('the MCP conformance suite, authorization server', () => {
  it('passes every scenario, the code grant signed in and allowed in Chromium', async () => {
    const port = await freePort();
    const redirectUri = `http://127.0.0.1:${port}/callback`;
    const registered = await register(
      { issuer: stack.baseUrl },
      { client_name: 'MCP conformance suite', redirect_uris: [redirectUri] },
    );
    expect(registered.status).toBe(201);
    const clientId = (registered.body as { client_id: string }).client_id;
    const out = mkdtempSync(join(tmpdir(), 'mcp-conformance-'));
    const suite = startProcess(
      'conformance',
      process.execPath,
      [
        CONFORMANCE,
        'authorization',
        ...['--url', stack.baseUrl, '--client-id', clientId],
        ...['--port', String(port), '--output-dir', out],
      ],
      { cwd: ROOT },
    );
    const exited = new Promise<number | null>((r) => suite.child.once('exit', (code) => r(code)));
    const output = () => suite.lines.join('');
    try {
      // The URL is the line after the suite's invitation to open it; its listener starts meanwhile.
      const invitation = /Access the following URL in your browser[^\n]*\n(\S+)\n/;
      const listening = `Callback server started: http://127.0.0.1:${port}\n`;
      await pollUntil(
        () => (invitation.test(output()) && output().includes(listening)) || suite.child.exitCode !== null,
        `the suite printing an authorization URL (so far: ${output()})`,
        60_000,
      );
      const url = new URL(invitation.exec(output())![1]!);
      expect(url.origin + url.pathname).toBe(`${stack.baseUrl}/oauth/authorize`);
      expect(url.searchParams.has('scope')).toBe(false);
      const consent = await signInAndAllow(url.href, redirectUri);
      // With no scope asked for, the consent page asks for the API's baseline.
      expect(consent).toContain('See your school’s school');
      expect(consent).toContain('See your school’s account');

      const code = await exited;
      expect([code, output()]).toEqual([0, expect.stringContaining('Total: ')]);
      expect(output()).toMatch(/\nTotal: [1-9]\d* passed, 0 failed\n/);
      for (const scenario of SCENARIOS)
        expect(output()).toMatch(new RegExp(`✓ ${scenario}: [1-9]\\d* passed, 0 failed`));

      const results = resultsIn(out);
      expect(Object.keys(results).sort()).toEqual([...SCENARIOS].sort());
      for (const [scenario, checks] of Object.entries(results)) {
        expect(checks.length).toBeGreaterThan(0);
        // Every check, the CIMD advertisement (a warning when absent) included, is a success.
        expect([scenario, checks.filter((c) => c.status !== 'SUCCESS')]).toEqual([scenario, []]);
      }
      expect(results['authorization-code-grant']!.map((c) => c.id)).toEqual(['authorization-code-grant']);
    } finally {
      await suite.stop();
      rmSync(out, { recursive: true, force: true });
    }
  }, 120_000);
});
