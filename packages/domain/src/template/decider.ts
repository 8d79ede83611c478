import { DomainError, type Decider } from "../decider.js";
import { createdBefore, isLiveFor, markDeleted, noResource, type LiveResource, type ResourceState } from "../teamResource.js";
import type { TemplateContent, TemplateEvent } from "./events.js";
import { checkTemplateContent } from "./rules.js";

export const templateStream = (templateId: string) => `template-${templateId}`;

export type TemplateCommand =
  | {
      type: "CreateTemplate";
      templateId: string;
      teamId: string;
      versionId: string;
      content: TemplateContent;
      duplicatedFrom: string | null;
      now: string;
    }
  /** `versionId` is used only when the edit has to start a new version. */
  | { type: "UpdateTemplate"; teamId: string; changes: Partial<TemplateContent>; versionId: string; now: string }
  | { type: "PublishTemplate"; teamId: string; now: string }
  | { type: "DeleteTemplate"; teamId: string; now: string };

export interface TemplateVersion {
  versionId: string;
  version: number;
}

export interface PublishedTemplate extends TemplateVersion {
  content: TemplateContent;
  publishedAt: string;
}

interface TemplateRecord {
  templateId: string;
  teamId: string;
  createdAt: string;
  updatedAt: string;
  /** The latest version: what GET shows and what the next publish makes live. */
  content: TemplateContent;
  current: TemplateVersion & { published: boolean };
  /** What sends use: the latest published version. */
  published: PublishedTemplate | null;
}

export type TemplateState = ResourceState<TemplateRecord>;

export type LiveTemplate = LiveResource<TemplateRecord>;

const notFound = () => new DomainError("not_found", "Template not found");

const contentFields = ["name", "alias", "subject", "html", "text", "from", "replyTo", "variables"] as const;

/** Field by field: a stored event's JSON may come back with its keys in another order (jsonb). */
const sameContent = (a: TemplateContent, b: TemplateContent) =>
  contentFields.every((field) =>
    field === "variables"
      ? a.variables.length === b.variables.length &&
        a.variables.every(
          (v, i) => v.key === b.variables[i]!.key && v.type === b.variables[i]!.type && v.fallbackValue === b.variables[i]!.fallbackValue,
        )
      : JSON.stringify(a[field]) === JSON.stringify(b[field]),
  );

export const templateDecider: Decider<TemplateCommand, TemplateEvent, TemplateState> = {
  initialState: noResource,
  evolve(state, event) {
    switch (event.type) {
      case "TemplateCreated": {
        const { templateId, teamId, versionId, createdAt, duplicatedFrom: _from, ...content } = event.data;
        return {
          status: "active",
          templateId,
          teamId,
          createdAt,
          updatedAt: createdAt,
          content,
          current: { versionId, version: 1, published: false },
          published: null,
        };
      }
      case "TemplateUpdated": {
        if (state.status === "none") return state;
        const { templateId: _id, versionId, version, updatedAt, ...content } = event.data;
        return { ...state, content, updatedAt, current: { versionId, version, published: false } };
      }
      case "TemplatePublished": {
        if (state.status === "none") return state;
        const { versionId, version, publishedAt } = event.data;
        return {
          ...state,
          updatedAt: publishedAt,
          current: { versionId, version, published: true },
          published: { versionId, version, publishedAt, content: state.content },
        };
      }
      case "TemplateDeleted":
        return markDeleted(state);
    }
  },
  decide(command, state) {
    switch (command.type) {
      case "CreateTemplate": {
        if (state.status !== "none")
          return createdBefore(state.teamId === command.teamId && state.current.versionId === command.versionId, "Template");
        const invalid = checkTemplateContent(command.content);
        if (invalid) return invalid;
        const { templateId, teamId, versionId, content, duplicatedFrom, now } = command;
        return [{ type: "TemplateCreated", data: { templateId, teamId, versionId, duplicatedFrom, createdAt: now, ...content } }];
      }
      case "UpdateTemplate": {
        if (!isLiveFor(state, command.teamId)) return notFound();
        const content: TemplateContent = { ...state.content, ...command.changes };
        const invalid = checkTemplateContent(content);
        if (invalid) return invalid;
        if (sameContent(content, state.content)) return [];
        // A published version is never edited: sends keep using it until the new draft is published.
        const next = state.current.published
          ? { versionId: command.versionId, version: state.current.version + 1 }
          : { versionId: state.current.versionId, version: state.current.version };
        return [{ type: "TemplateUpdated", data: { templateId: state.templateId, ...next, updatedAt: command.now, ...content } }];
      }
      case "PublishTemplate": {
        if (!isLiveFor(state, command.teamId)) return notFound();
        if (state.current.published) return [];
        const { versionId, version } = state.current;
        return [{ type: "TemplatePublished", data: { templateId: state.templateId, versionId, version, publishedAt: command.now } }];
      }
      case "DeleteTemplate":
        if (!isLiveFor(state, command.teamId)) return notFound();
        return [{ type: "TemplateDeleted", data: { templateId: state.templateId, alias: state.content.alias, deletedAt: command.now } }];
    }
  },
};
