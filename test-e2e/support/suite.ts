/**
 * The jest hooks most e2e files open with: the stack (and, for the browser files, headless Chromium)
 * started once before the file's tests and stopped after them. What was started is handed to the
 * file through `use`, which keeps it in its own variables.
 */
import { afterAll, beforeAll } from '@jest/globals';
import type { Browser } from 'playwright-core';
import { launchBrowser } from './browser.js';
import { startStack, type Stack } from './stack.js';

/** Starts the stack with `env` before the file's tests; stops it after them. */
export function stackForFile(use: (stack: Stack) => void, env: Record<string, string> = {}): void {
  let stack: Stack | undefined;
  beforeAll(async () => {
    stack = await startStack(env);
    use(stack);
  }, 90_000);
  afterAll(() => stack?.stop());
}

/** Starts the stack with `env` and Chromium before the file's tests; closes both after them. */
export function stackAndBrowserForFile(
  use: (stack: Stack, browser: Browser) => void,
  env: Record<string, string> = {},
): void {
  let stack: Stack | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    [stack, browser] = await Promise.all([startStack(env), launchBrowser()]);
    use(stack, browser);
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });
}
