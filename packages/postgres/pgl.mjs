import { PGlite } from "@electric-sql/pglite";
let t=Date.now();
const a = new PGlite(); await a.waitReady; console.log("fresh", Date.now()-t);
t=Date.now(); const dump = await a.dumpDataDir("none"); console.log("dump", Date.now()-t, dump.size);
t=Date.now(); const b = new PGlite({ loadDataDir: dump }); await b.waitReady; console.log("from dump", Date.now()-t);
t=Date.now(); const c = new PGlite(); await c.waitReady; console.log("fresh2", Date.now()-t);
