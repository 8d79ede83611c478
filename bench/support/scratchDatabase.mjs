// A throw-away PostgreSQL database for one benchmark run, dropped afterwards whatever happens (an
// interrupted or failed run too: see teardown.mjs).
import pg from "pg";
import { undoOnExit } from "./teardown.mjs";

export const adminUrl = process.env.TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

export async function withScratchDatabase(label, run) {
  const name = `tidings_bench_${label}_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  const drop = undoOnExit(`database ${name}`, async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  });
  try {
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    return await run(url.toString());
  } catch (error) {
    // Said before the drop: dropping ends the run's connections, and a client left open reports that
    // instead, as an uncaught error that ends the process before this one is heard.
    process.stderr.write(`bench: ${error?.stack ?? error}\n`);
    throw error;
  } finally {
    await drop();
  }
}
