/**
 * `school-auth keys …`: the auth server's signing keys. `generate` prints a new key set for a
 * deployment that keeps its keys elsewhere (the Helm chart's `jwks.json` Secret); the others work on
 * KEYS_FILE, the file every instance reads at start, step by step as docs/operators.md's "Rotating
 * signing keys" describes (provider/key-rotation.ts). They need no Redis or MongoDB.
 */
import { Option, type Command } from 'commander';
import { DEFAULT_KEYS_FILE } from '../config.js';
import {
  activateKey,
  addKey,
  KeyRotationRefused,
  listKeys,
  retireKey,
  type KeySummary,
} from '../provider/key-rotation.js';
import { newKeySet, SIGNING_ALGORITHMS } from '../provider/keys.js';
import { OperatorError } from './operator-error.js';
import { print } from './output.js';

const fileOption = () =>
  new Option('--file <path>', 'the key file').env('KEYS_FILE').default(DEFAULT_KEYS_FILE);

/** A key as the commands print it: its id (the JWK's `kid`) as `key_id`. */
const keyJson = ({ kid, alg, role }: KeySummary) => ({ key_id: kid, alg, role });

async function step(work: () => Promise<unknown>): Promise<void> {
  try {
    print(await work());
  } catch (err) {
    if (err instanceof KeyRotationRefused) throw new OperatorError(`${err.message}.`);
    throw err;
  }
}

/** Adds `keys` and its subcommands to the program. */
export function registerKeysCommands(program: Command): void {
  const keys = program.command('keys').description('the signing keys (KEYS_FILE) and their rotation');

  keys
    .command('generate')
    .description('print a new key set (one ES256 and one RS256 private key) as jwks.json, to stdout')
    .action(async () => print({ keys: await newKeySet() }));

  keys
    .command('list')
    .description('every key of the file: its id, algorithm and whether it signs or only verifies')
    .addOption(fileOption())
    .action((o: { file: string }) => step(async () => (await listKeys(o.file)).map(keyJson)));

  keys
    .command('rotate')
    .description(
      'step 1: add a new key at the end of the file, published but not yet signing; restart every ' +
        'instance, then `keys activate` it once clients have refreshed their key caches (an hour)',
    )
    .addOption(fileOption())
    .addOption(
      new Option('--alg <alg>', 'the new key’s algorithm').choices(SIGNING_ALGORITHMS).default('ES256'),
    )
    .action((o: { file: string; alg: string }) =>
      step(async () => {
        const added = await addKey(o.file, o.alg);
        return {
          added: keyJson(added),
          next: `restart every instance; in an hour: school-auth keys activate ${added.kid}`,
        };
      }),
    );

  keys
    .command('activate')
    .description(
      'step 2: move a key to the front, so it signs from the next restart; the old one still verifies',
    )
    .argument('<kid>', 'the key’s id (keys list shows it)')
    .addOption(fileOption())
    .action((kid: string, o: { file: string }) =>
      step(async () => (await activateKey(o.file, kid)).map(keyJson)),
    );

  keys
    .command('retire')
    .description(
      'step 3: delete a key that no longer signs, once what it signed has expired (ACCESS_TOKEN_TTL)',
    )
    .argument('<kid>', 'the key’s id (keys list shows it)')
    .addOption(fileOption())
    .action((kid: string, o: { file: string }) =>
      step(async () => (await retireKey(o.file, kid)).map(keyJson)),
    );
}
