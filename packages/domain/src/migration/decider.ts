import { DomainError, type Decider } from "../decider.js";
import type { MigratedKind, MigrationEvent } from "./events.js";

export const migrationStream = (migrationId: string) => `migration-${migrationId}`;

export type MigrationCommand =
  | { type: "StartMigration"; migrationId: string; teamId: string; source: string; now: string }
  | { type: "RecordCopiedResource"; kind: MigratedKind; sourceId: string; localId: string; now: string }
  | { type: "CompleteMigrationRun"; copied: number; now: string };

/** Source id → local id, per kind. */
export type MigrationMapping = Record<MigratedKind, Record<string, string>>;

export type MigrationState =
  | { status: "none" }
  | {
      status: "started" | "completed";
      migrationId: string;
      teamId: string;
      source: string;
      mapping: MigrationMapping;
      copiedCount: number;
      runsCompleted: number;
      lastCompletedAt: string | null;
    };

const emptyMapping = (): MigrationMapping => ({
  contact_property: {},
  topic: {},
  segment: {},
  contact: {},
  template: {},
  webhook: {},
  domain: {},
});

export const migrationDecider: Decider<MigrationCommand, MigrationEvent, MigrationState> = {
  initialState: { status: "none" },
  evolve(state, event) {
    switch (event.type) {
      case "MigrationStarted": {
        const { migrationId, teamId, source } = event.data;
        return {
          status: "started",
          migrationId,
          teamId,
          source,
          mapping: emptyMapping(),
          copiedCount: 0,
          runsCompleted: 0,
          lastCompletedAt: null,
        };
      }
      case "ResourceCopied": {
        if (state.status === "none") return state;
        const { kind, sourceId, localId } = event.data;
        // A copy after a completed run is a new run under way, until it completes too.
        return {
          ...state,
          status: "started",
          mapping: { ...state.mapping, [kind]: { ...state.mapping[kind], [sourceId]: localId } },
          copiedCount: state.copiedCount + 1,
        };
      }
      case "MigrationCompleted":
        return state.status === "none"
          ? state
          : { ...state, status: "completed", runsCompleted: state.runsCompleted + 1, lastCompletedAt: event.data.completedAt };
    }
  },
  decide(command, state) {
    if (command.type === "StartMigration") {
      // A resumed or repeated run goes on in the same stream: the source and team are fixed by the first.
      if (state.status !== "none") return [];
      const { migrationId, teamId, source, now } = command;
      return [{ type: "MigrationStarted", data: { migrationId, teamId, source, startedAt: now } }];
    }
    if (state.status === "none") return new DomainError("not_found", "Migration not started");
    const { migrationId } = state;
    switch (command.type) {
      case "RecordCopiedResource": {
        const known = state.mapping[command.kind][command.sourceId];
        if (known === command.localId) return [];
        if (known !== undefined)
          return new DomainError("conflict", `The ${command.kind} ${command.sourceId} was copied already, as ${known}.`);
        const { kind, sourceId, localId, now } = command;
        return [{ type: "ResourceCopied", data: { migrationId, kind, sourceId, localId, copiedAt: now } }];
      }
      case "CompleteMigrationRun":
        return [{ type: "MigrationCompleted", data: { migrationId, copied: command.copied, completedAt: command.now } }];
    }
  },
};
