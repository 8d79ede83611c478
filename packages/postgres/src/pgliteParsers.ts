import { types, type PGlite } from "@electric-sql/pglite";

/**
 * Moves an instance's result parsers into PGlite's shared default table, leaving the instance's own empty.
 *
 * PGlite copies an instance's parser table into each query's result parsing, and at start it fills that
 * table with one parser for the array of every type in `pg_type`: 316 on a new database, one more for each
 * table after our migrations, keyed by type oid. The copy of so sparse an integer-keyed table cost about
 * 117 KB of garbage and more CPU than the query itself: `SELECT $1::int` allocated 151 KB with the table
 * and 34 KB without it, and an idle embedded process, whose bus consumers and pollers query a few dozen times
 * a second, allocated 5 MB/s (docs/operations.md, "Embedded: one process, one directory"). A type missing
 * from an instance's table is looked up in `types.parsers`, which is shared and never copied, so the array
 * parsers go there. Only arrays of PostgreSQL's own non-row types: their oids are the same in every
 * database, where a table's row type is not, and an array of rows comes only from aggregating whole rows,
 * which Tidings never does. Values parse as they did.
 */
export async function shareArrayParsers(pglite: PGlite): Promise<void> {
  const { rows } = await pglite.query<{ array: number; element: number }>(
    `SELECT a.oid AS array, a.typelem AS element
     FROM pg_catalog.pg_type a JOIN pg_catalog.pg_type e ON e.oid = a.typelem
     WHERE a.typcategory = 'A' AND e.typtype <> 'c' AND e.typnamespace = 'pg_catalog'::regnamespace`,
  );
  for (const { array, element } of rows) {
    // An element type without a parser (uuid, say) reads as text, as PGlite's own array parsers read it.
    const parseElement = types.parsers[element] ?? ((text: string) => text);
    types.parsers[array] ??= (value: string) => types.arrayParser(value, parseElement, array);
  }
  pglite.parsers = {};
}
