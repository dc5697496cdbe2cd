import { describe, expect, it } from '@jest/globals';
import { AUTH_SERVER_NODE_FLAGS, missingNodeFlags } from './node-flags.js';

describe('missingNodeFlags', () => {
  it('names every flag when the process was started with none', () => {
    expect(missingNodeFlags([], '')).toEqual([...AUTH_SERVER_NODE_FLAGS]);
  });

  it('finds them on the command line or in NODE_OPTIONS', () => {
    expect(missingNodeFlags(['--inspect', ...AUTH_SERVER_NODE_FLAGS], '')).toEqual([]);
    expect(missingNodeFlags([], `--max-old-space-size=512 ${AUTH_SERVER_NODE_FLAGS.join(' ')}`)).toEqual([]);
  });

  it('does not take a longer flag that merely starts the same way', () => {
    expect(
      missingNodeFlags(
        AUTH_SERVER_NODE_FLAGS.map((f) => `${f}-not`),
        '',
      ),
    ).toEqual([...AUTH_SERVER_NODE_FLAGS]);
  });
});

describe('this Node.js', () => {
  it('accepts the flags (a launcher passing one it refuses would not start at all)', () => {
    for (const flag of AUTH_SERVER_NODE_FLAGS)
      expect(process.allowedNodeEnvironmentFlags.has(flag)).toBe(true);
  });
});
