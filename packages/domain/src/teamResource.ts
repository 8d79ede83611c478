import { DomainError } from "./decider.js";

/**
 * The life of most things a team configures (API keys, templates, topics, …): nothing yet, then created
 * (`active`), then perhaps `deleted`. A deleted one keeps its record, so a repeated delete or a create
 * reusing the id still sees whose it was.
 */
export type ResourceState<Record> = { status: "none" } | (Record & { status: "active" | "deleted" });
export type LiveResource<Record> = Record & { status: "active" };

export const noResource: { status: "none" } = { status: "none" };

/**
 * Whether a command of `teamId` may act on the resource. Another team's resource answers the same as a
 * missing or deleted one (not found), so nobody learns which ids other teams use.
 */
export const isLiveFor = <Record extends { teamId: string }>(state: ResourceState<Record>, teamId: string): state is LiveResource<Record> =>
  state.status === "active" && state.teamId === teamId;

/** How `evolve` folds a delete: the record stays, marked deleted; a delete of nothing changes nothing. */
export const markDeleted = <Record>(state: ResourceState<Record>): ResourceState<Record> =>
  state.status === "none" ? state : { ...state, status: "deleted" };

/**
 * A create that finds its id taken. The same create again (handleCommand retrying after a conflict, a
 * client retrying) appends nothing; anything else reusing the id is a mistake upstream, refused.
 */
export const createdBefore = (sameCreate: boolean, resource: string): [] | DomainError =>
  sameCreate ? [] : new DomainError("validation_error", `${resource} already exists.`);
