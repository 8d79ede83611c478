export { createPostgresEventStore, type PostgresEventStoreOptions } from "./postgresEventStore.js";
export { eventStoreMigrations } from "./migrations.js";
