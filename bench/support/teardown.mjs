// What a benchmark makes must go however it ends: child processes, scratch databases, NATS streams and
// temporary directories. Each is registered here as it is made. A run that ends normally undoes each in
// its own `finally`, through the function `undoOnExit` returns; a run cut short (SIGINT, SIGTERM, an error
// no `finally` catches) has what is left undone here, newest first, before the process ends. Before this,
// a bench killed mid-broadcast left its `--role sagas` child running for 20 minutes.

/** Each undo still to do, oldest first. */
const pending = [];
/** Child processes not yet seen to exit: killed outright if this process leaves before their undo ran. */
const children = new Set();
/** How long one undo may take while the process is being cut short, before the next is tried anyway. */
const undoBoundMs = 20_000;
let tearingDown;

/**
 * Registers `undo` (named for the log) and returns it: call the returned function in the run's own
 * `finally`. It runs once, whoever calls it first, and later calls wait for that one.
 */
export function undoOnExit(name, undo) {
  listen();
  let done;
  const entry = {
    name,
    run: () => {
      done ??= (async () => {
        const at = pending.indexOf(entry);
        if (at !== -1) pending.splice(at, 1);
        await undo();
      })();
      return done;
    },
  };
  pending.push(entry);
  return entry.run;
}

/**
 * A child process to stop on undo: SIGTERM, as an operator stops it, and SIGKILL if it is still there
 * after `killAfterMs`. Resolves once it has exited.
 */
export function childToStop(name, child, killAfterMs = 15_000) {
  const exited = new Promise((resolve) => child.once("exit", resolve));
  children.add(child);
  exited.then(() => children.delete(child));
  const stop = undoOnExit(name, async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    const killer = setTimeout(() => child.kill("SIGKILL"), killAfterMs);
    await exited;
    clearTimeout(killer);
  });
  return { exited, stop };
}

/** Undoes what is left, newest first, each within `undoBoundMs`; a failed undo is reported and the next one still runs. */
function tearDown(reason) {
  tearingDown ??= (async () => {
    const left = [...pending].reverse();
    if (left.length > 0) process.stderr.write(`bench: ${reason}; undoing ${left.map((e) => e.name).join(", ")}\n`);
    for (const entry of left) {
      let bound;
      const late = new Promise((resolve) => (bound = setTimeout(() => resolve(`took over ${undoBoundMs} ms`), undoBoundMs)));
      const failure = await Promise.race([
        entry.run().then(
          () => undefined,
          (error) => error?.message ?? String(error),
        ),
        late,
      ]);
      clearTimeout(bound);
      if (failure) process.stderr.write(`bench: could not undo ${entry.name}: ${failure}\n`);
    }
  })();
  return tearingDown;
}

let listening = false;
function listen() {
  if (listening) return;
  listening = true;
  for (const [signal, code] of [
    ["SIGINT", 130],
    ["SIGTERM", 143],
  ]) {
    process.on(signal, () => {
      tearDown(`${signal} received`).finally(() => process.exit(code));
    });
  }
  const fail = (error) => {
    // Once undoing, what it undoes fails under the run's feet (a dropped database ends its connections): one line each.
    if (tearingDown) return void process.stderr.write(`bench: while undoing: ${error?.message ?? error}\n`);
    process.stderr.write(`bench: ${error?.stack ?? error}\n`);
    tearDown("failed").finally(() => process.exit(1));
  };
  process.on("uncaughtException", fail);
  process.on("unhandledRejection", fail);
  // The last resort, when the process leaves with a child's undo not run (an explicit process.exit): no
  // waiting is possible here, so such a child is killed outright.
  process.on("exit", () => {
    for (const child of children) child.kill("SIGKILL");
  });
}
