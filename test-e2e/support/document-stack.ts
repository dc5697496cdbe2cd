/**
 * What the metadata-document suites run on: the stack through the edge, trusting a local HTTPS
 * document host (test-support/https-documents.ts) for its test-only fetches, and Chromium when the
 * suite drives the pages.
 */
import type { Browser } from 'playwright-core';
import { startWithDocuments, type DocumentServer } from '../../test-support/https-documents.js';
import { launchBrowser } from './browser.js';
import { startStack, type Stack } from './stack.js';

/** The document host and the stack trusting it; `browser` when asked for. */
export interface DocumentStack {
  docs: DocumentServer;
  stack: Stack;
  browser?: Browser;
}

/** Starts the document host, then the stack (with `env`) and, when `withBrowser`, Chromium beside it. */
export async function startDocumentStack(
  env?: Record<string, string>,
  options?: { withBrowser: false },
): Promise<DocumentStack>;
export async function startDocumentStack(
  env: Record<string, string>,
  options: { withBrowser: true },
): Promise<Required<DocumentStack>>;
export async function startDocumentStack(
  env: Record<string, string> = {},
  { withBrowser = false } = {},
): Promise<DocumentStack> {
  const { docs, server } = await startWithDocuments((trust) =>
    Promise.all([startStack({ ...trust, ...env }), withBrowser ? launchBrowser() : undefined]),
  );
  const [stack, browser] = server;
  return { docs, stack, browser };
}

/** Stops whatever of a {@link DocumentStack} was started. */
export async function stopDocumentStack(started: Partial<DocumentStack>): Promise<void> {
  await started.browser?.close();
  await started.stack?.stop();
  await started.docs?.close();
}
