import { DomainError, type Decider } from "../decider.js";
import type { ContactTopicChoice } from "../contact/events.js";
import type { ColumnMap, ContactImportEvent, ContactImportStatus, ImportCounts, ImportRowError, OnConflict } from "./events.js";

export const contactImportStream = (importId: string) => `import-${importId}`;
/** GET /contacts/imports/:id shows this many row errors; the rest are only counted. */
export const IMPORT_ROW_ERRORS_KEPT = 100;

/** What an import is asked to do: which file, how its columns map, what a known email does, where the contacts go. */
export interface ContactImportRequest {
  importId: string;
  teamId: string;
  file: { sha256: string; size: number };
  columnMap: ColumnMap;
  onConflict: OnConflict;
  segmentIds: string[];
  topics: ContactTopicChoice[];
}

export type ContactImportCommand =
  | (ContactImportRequest & { type: "QueueContactImport"; now: string })
  | { type: "StartContactImport"; now: string }
  | { type: "RecordContactImportProgress"; rowsDone: number; counts: ImportCounts; errors: ImportRowError[] }
  | { type: "CompleteContactImport"; now: string }
  | { type: "FailContactImport"; reason: string; now: string };

/** The request, and how far the import got: rows applied, counts, and the row errors it keeps. */
export interface ContactImportRecord extends ContactImportRequest {
  rowsDone: number;
  counts: ImportCounts;
  errors: ImportRowError[];
}

export type ContactImportState = { status: "none" } | (ContactImportRecord & { status: ContactImportStatus });

export const noImportCounts: ImportCounts = { total: 0, created: 0, updated: 0, skipped: 0, failed: 0 };

const isFinished = (status: ContactImportStatus) => status === "completed" || status === "failed";

export const contactImportDecider: Decider<ContactImportCommand, ContactImportEvent, ContactImportState> = {
  initialState: { status: "none" },
  evolve(state, event) {
    switch (event.type) {
      case "ContactImportQueued": {
        const { importId, teamId, file, columnMap, onConflict, segmentIds, topics } = event.data;
        return {
          status: "queued",
          importId,
          teamId,
          file,
          columnMap,
          onConflict,
          segmentIds,
          topics,
          rowsDone: 0,
          counts: noImportCounts,
          errors: [],
        };
      }
      case "ContactImportStarted":
        return state.status === "none" ? state : { ...state, status: "in_progress" };
      case "ContactImportProgressed":
        return state.status === "none"
          ? state
          : { ...state, rowsDone: event.data.rowsDone, counts: event.data.counts, errors: [...state.errors, ...event.data.errors] };
      case "ContactImportCompleted":
        return state.status === "none" ? state : { ...state, status: "completed", counts: event.data.counts };
      case "ContactImportFailed":
        return state.status === "none" ? state : { ...state, status: "failed" };
    }
  },
  decide(command, state) {
    if (command.type === "QueueContactImport") {
      if (state.status !== "none") return [];
      const { type: _type, now, ...data } = command;
      return [{ type: "ContactImportQueued", data: { ...data, createdAt: now } }];
    }
    if (state.status === "none") return new DomainError("not_found", "Contact import not found");
    const { importId } = state;
    // A finished import takes no more work: a redelivered or restarted run finds nothing to do.
    if (isFinished(state.status)) return [];
    switch (command.type) {
      case "StartContactImport":
        return state.status === "queued" ? [{ type: "ContactImportStarted", data: { importId, startedAt: command.now } }] : [];
      case "RecordContactImportProgress": {
        if (command.rowsDone <= state.rowsDone) return [];
        const room = Math.max(0, IMPORT_ROW_ERRORS_KEPT - state.errors.length);
        return [
          {
            type: "ContactImportProgressed",
            data: { importId, rowsDone: command.rowsDone, counts: command.counts, errors: command.errors.slice(0, room) },
          },
        ];
      }
      case "CompleteContactImport":
        return [
          { type: "ContactImportCompleted", data: { importId, teamId: state.teamId, counts: state.counts, completedAt: command.now } },
        ];
      case "FailContactImport":
        return [{ type: "ContactImportFailed", data: { importId, teamId: state.teamId, reason: command.reason, failedAt: command.now } }];
    }
  },
};
