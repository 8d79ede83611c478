/**
 * Where a command writes: `out` for its result (stdout, one line per call), `err` for progress and
 * warnings (stderr). A command that takes one instead of writing to the console can run in this process
 * or inside a serving process that streams both back to the CLI.
 */
export interface CliOutput {
  out(line: string): void;
  err(line: string): void;
}

export const consoleOutput: CliOutput = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};
