/** The file the script writes: docs/events.md. */
export declare const catalogueFile: URL;
/** The command that rewrites docs/events.md. */
export declare const regenerateCommand: string;
/** The whole of docs/events.md for the schemas `domain` (the `@tidings/domain` module) exports. */
export declare function eventCatalogue(domain: Record<string, unknown>): string;
