import type { ContactImportEvent, ContactImportStatus } from "@tidings/domain";
import { holds, type Projection } from "../engine/projection.js";
import { handlersOf, type EventData } from "../engine/typedHandlers.js";
import { teamResourceTable } from "./teamResourceTable.js";

/** Contact imports as GET and list show them (docs/wire-compatibility.md §6.10), and the row errors each one kept. */
export const contactImportsProjection = {
  name: "contact_imports",
  version: 1,
  tables: {
    contact_imports: teamResourceTable({
      columns: {
        status: { type: "text", ...holds<ContactImportStatus>() },
        counts: { type: "jsonb", ...holds<EventData<ContactImportEvent, "ContactImportCompleted">["counts"]>() },
        created_at: { type: "timestamptz" },
        completed_at: { type: "timestamptz", nullable: true },
      },
    }),
    contact_import_errors: {
      columns: {
        import_id: { type: "uuid" },
        line: { type: "integer" },
        reason: { type: "text" },
      },
      primaryKey: ["import_id", "line"],
    },
  },
  handlers: handlersOf<ContactImportEvent>({
    ContactImportQueued(data, context) {
      context.upsert("contact_imports", {
        id: data.importId,
        team_id: data.teamId,
        status: "queued",
        counts: { total: 0, created: 0, updated: 0, skipped: 0, failed: 0 },
        created_at: data.createdAt,
        completed_at: null,
      });
    },
    ContactImportStarted(data, context) {
      context.update("contact_imports", { id: data.importId }, { status: "in_progress" });
    },
    ContactImportProgressed(data, context) {
      context.update("contact_imports", { id: data.importId }, { counts: data.counts });
      for (const error of data.errors)
        context.upsert("contact_import_errors", { import_id: data.importId, line: error.line, reason: error.reason });
    },
    ContactImportCompleted(data, context) {
      context.update(
        "contact_imports",
        { id: data.importId },
        { status: "completed", counts: data.counts, completed_at: data.completedAt },
      );
    },
    ContactImportFailed(data, context) {
      context.update("contact_imports", { id: data.importId }, { status: "failed", completed_at: data.failedAt });
    },
  }),
} satisfies Projection;
