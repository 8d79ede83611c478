/**
 * The durable consumer names of every saga: their progress lives under these names on the bus, and
 * `tidings status` lists each one's dead letters (DESIGN §5).
 */
export const deliveryDurable = "delivery";
export const scheduledEmailEvents = ["EmailScheduled", "EmailRescheduled", "EmailCanceled"] as const;
export const schedulerDurable = (type: (typeof scheduledEmailEvents)[number]) => `scheduler-${type}`;

export const contactImportDurable = "contact-import";

export const sagaDurables: string[] = [deliveryDurable, ...scheduledEmailEvents.map(schedulerDurable), contactImportDurable];
