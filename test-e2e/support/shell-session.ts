/**
 * One bash process fed shell text piece by piece, as a reader pastes README blocks into one terminal:
 * variables set by one piece are there for the next. It runs under `set -euo pipefail`, so a failing
 * command or an unset variable ends the shell, and the piece that was running rejects with what bash
 * wrote on stderr. Each piece resolves with what it printed on stdout (a marker line, echoed after
 * it, tells where its output ends).
 */
import { startProcess, type Started } from '../../test-support/processes.js';

/** A running bash fed by {@link ShellSession.run}. */
export class ShellSession {
  private readonly shell: Started;
  private stdout = '';
  private stderr = '';
  private pieces = 0;

  /** Starts `bash` in `cwd` with `env` (no profile, no rc file). */
  constructor(cwd: string, env: NodeJS.ProcessEnv) {
    this.shell = startProcess('walkthrough shell', 'bash', ['--noprofile', '--norc'], {
      cwd,
      env,
      stdin: true,
    });
    this.shell.child.stdout!.on('data', (d: Buffer) => (this.stdout += d.toString()));
    this.shell.child.stderr!.on('data', (d: Buffer) => (this.stderr += d.toString()));
    this.shell.child.stdin!.write('set -euo pipefail\n');
  }

  /**
   * Runs `script`; resolves with its stdout (without the last newline) once bash has run all of it,
   * rejects if bash exits first (a command failed) or after `timeoutMs`.
   */
  run(script: string, timeoutMs = 60_000): Promise<string> {
    const marker = `__walkthrough_piece_${++this.pieces}_done__`;
    const start = this.stdout.length;
    this.shell.child.stdin!.write(`${script}\nprintf '\\n%s\\n' '${marker}'\n`);
    return new Promise((resolve, reject) => {
      const deadline = Date.now() + timeoutMs;
      const poll = setInterval(() => {
        const end = this.stdout.indexOf(`\n${marker}\n`, start);
        const failure =
          end >= 0
            ? undefined
            : this.shell.child.exitCode !== null
              ? `bash exited (${this.shell.child.exitCode})`
              : Date.now() > deadline
                ? `no end after ${timeoutMs} ms`
                : undefined;
        if (end < 0 && !failure) return;
        clearInterval(poll);
        if (failure) {
          reject(
            new Error(
              `${failure} running:\n${script}\nstdout:\n${this.stdout.slice(start)}\nstderr:\n${this.stderr}`,
            ),
          );
        } else {
          resolve(this.stdout.slice(start, end).replace(/\n$/, ''));
        }
      }, 50);
    });
  }

  /** The value of shell variable `name` now. */
  value(name: string): Promise<string> {
    return this.run(`printf '%s' "$${name}"`);
  }

  /** Ends the shell (stdin closed, then SIGTERM). */
  async close(): Promise<void> {
    this.shell.child.stdin!.end();
    await this.shell.stop();
  }
}
