import { templateDecider, templateStream, type LiveTemplate } from "@tidings/domain";
import { namedResources, type FindNamed } from "./namedResources.js";

/** Templates by id or alias; an alias is unique within a team. */
const templates = namedResources({
  reservation: "template-alias",
  streamOf: templateStream,
  decider: templateDecider,
  nameOf: (template) => template.content.alias,
});

export const templateAliasStream = templates.nameStream;
export const findTemplate: FindNamed<LiveTemplate> = templates.find;
export const aliasClaimCheck = templates.claimCheck;
