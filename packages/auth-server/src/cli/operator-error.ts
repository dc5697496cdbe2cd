/**
 * What `school-auth` says when a command fails: one sentence in plain words on one line, whatever
 * threw it. A refusal the command itself decides is an {@link OperatorError}; the errors of the
 * libraries underneath (a zod schema's issue list, a Mongoose cast error, the configuration's list of
 * problems, a connection refused) are put into words here rather than printed as they come.
 */
import { ConfigError } from '@school/shared';
import mongoose from 'mongoose';
import { z } from 'zod';

/** A refusal in the operator's words, with the exit code to leave with (1 unless said). */
export class OperatorError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

const oneLine = (text: string) => text.replace(/\s*\n\s*/g, '; ').trim();

/** The sentence to print for `err`, ending with its full stop. */
export function plainError(err: unknown): string {
  const text = words(err);
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

function words(err: unknown): string {
  if (err instanceof OperatorError) return err.message;
  if (err instanceof ConfigError) return `the configuration is not usable: ${err.problems.join('; ')}`;
  if (err instanceof z.ZodError)
    return err.issues
      .map((i) => `${i.path.length ? `${i.path.join('.')}: ` : ''}${i.message.toLowerCase()}`)
      .join('; ');
  if (err instanceof mongoose.Error.CastError)
    return `"${String(err.value)}" is not a valid ${err.kind.toLowerCase()} for ${err.path}`;
  if (err instanceof mongoose.Error.ValidationError)
    return Object.values(err.errors)
      .map((e) => e.message)
      .join('; ');
  if (err instanceof Error) return oneLine(err.message);
  return oneLine(String(err));
}
