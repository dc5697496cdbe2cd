#!/usr/bin/env node
/**
 * The operator command, `school-auth` (`npm run auth -- <command>` from the repository): the commands
 * are in cli/program.ts, each with its `--help`. A command that fails says why in one sentence on
 * stderr (cli/operator-error.ts) and exits non-zero: 2 for a usage error, 1 otherwise. Everything it
 * prints that a terminal would act on or hide is shown escaped (`@school/shared` terminal-text.ts).
 */
import { terminalSafe } from '@school/shared';
import { CommanderError } from 'commander';
import { plainError, OperatorError } from './operator-error.js';
import { buildProgram } from './program.js';

/** What commander reports for help and version requests, which are not failures. */
const HELP_CODES = new Set(['commander.helpDisplayed', 'commander.version']);

async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  if (argv.length === 0) {
    program.outputHelp({ error: true });
    return 2;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (err) {
    // Commander has printed the problem (or the help a bare group asked for) and where help is.
    if (err instanceof CommanderError) return HELP_CODES.has(err.code) ? 0 : 2;
    console.error(terminalSafe(`school-auth: ${plainError(err)}`));
    return err instanceof OperatorError ? err.exitCode : 1;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(terminalSafe(`school-auth: ${plainError(err)}`));
    process.exit(1);
  },
);
