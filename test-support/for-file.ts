/**
 * What a test file's tests share (a server, a stack of them), started once before the file's tests
 * and stopped after them, handed out as an object the file can keep in a `const` from the start.
 */
import { afterAll, beforeAll } from '@jest/globals';

/**
 * `start`ed before the file's tests (a `beforeAll` declared after this call sees it started), stopped
 * after them. The object returned is filled in with a copy of what `start` returns when it has
 * started: a method that changes the object must change `this`, not the object `start` made.
 */
export function sharedForFile<T extends { stop(): Promise<void> }>(start: () => Promise<T>): T {
  const shared = {} as T;
  beforeAll(async () => {
    Object.assign(shared, await start());
  });
  afterAll(() => shared.stop?.());
  return shared;
}
