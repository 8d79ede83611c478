import { extname } from "node:path";

/** The types mail clients need right to show an attachment inline; anything else is offered as a file. */
const byExtension: Record<string, string> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".svg": "image/svg+xml",
  ".pdf": "application/pdf",
  ".txt": "text/plain",
  ".csv": "text/csv",
  ".html": "text/html",
  ".ics": "text/calendar",
  ".json": "application/json",
  ".zip": "application/zip",
};

export function attachmentContentType(filename: string, given: string | null | undefined): string {
  return given || byExtension[extname(filename).toLowerCase()] || "application/octet-stream";
}
