import { z } from "zod";
import { isDomainError, renderTemplate, type DomainError, type RenderedTemplate } from "@tidings/domain";
import { withQuery } from "../apiCalls.js";
import type { Dashboard } from "../dashboard.js";
import { frameDocument, frameProblem } from "../sandboxedFrame.js";
import { templatePath, type TemplateItem } from "./templates.js";

/** `GET /templates/:id`: the template as it is now, its latest draft. */
export interface TemplateObject extends TemplateItem {
  subject: string | null;
  html: string;
  text: string | null;
  from: string | null;
  reply_to: string[] | null;
  variables: { key: string; type: "string" | "number"; fallback_value: string | number | null }[];
  has_unpublished_versions: boolean;
}

/** The sample values a preview is asked for, one query parameter a variable; `renderPreview` checks them as a send would. */
export const sampleQuery = z.record(z.string(), z.string());
export type SampleValues = z.infer<typeof sampleQuery>;

export const templateParams = z.object({ id: z.guid() });

/** Each variable's sample: the one asked for, else its fallback, so a first preview shows what a send without values would. */
export function sampleValues(template: TemplateObject, asked: SampleValues): SampleValues {
  return Object.fromEntries(
    template.variables.map((v) => [v.key, asked[v.key] ?? (v.fallback_value === null ? "" : String(v.fallback_value))]),
  );
}

/**
 * The template rendered with `samples` by `renderTemplate`, the function a send uses, so the preview
 * refuses what a send would (a missing value, a number that is not one). An empty field is a value not
 * given. A preview needs neither sender nor subject: a send may give both.
 */
export function renderPreview(template: TemplateObject, samples: SampleValues): RenderedTemplate | DomainError {
  const values: Record<string, string | number> = {};
  for (const v of template.variables) {
    const sample = samples[v.key];
    if (!sample) continue;
    values[v.key] = v.type === "number" && sample.trim() !== "" && Number.isFinite(Number(sample)) ? Number(sample) : sample;
  }
  const { id, name, subject, from, reply_to, text } = template;
  const variables = template.variables.map((v) => ({ key: v.key, type: v.type, fallbackValue: v.fallback_value }));
  return renderTemplate(
    { templateId: id, version: 0, name, subject, from, replyTo: reply_to, html: template.html, text, variables },
    values,
    { from: from ?? "", ...(subject === null ? { subject: "" } : {}) },
  );
}

export const previewSrc = (id: string, samples: SampleValues) => withQuery(`${templatePath(id)}/preview`, samples);

/** The rendered html as a document of its own, for the sandboxed frame: its author may have pasted it from anywhere. */
export function templatePreviewFrame(dashboard: Dashboard): void {
  dashboard.page("/templates/:id/preview", { params: templateParams, querystring: sampleQuery }, async (who, { params, query }) => {
    const template = await who.api.get<TemplateObject>(`/templates/${params.id}`);
    if (!template.ok) return frameProblem(template.status, template.message);
    const rendered = renderPreview(template.body, sampleValues(template.body, query));
    return isDomainError(rendered) ? frameProblem(422, rendered.message) : frameDocument(rendered);
  });
}
