import { sql, type RawBuilder } from "kysely";
import { addressesIn, erasedText, subjectAddress } from "@tidings/privacy";

/** Who was erased, as the caller of `scrubErasedSubject` names them. */
export interface ErasedSubject {
  teamId: string;
  /** An address or mailbox, in any case. */
  address: string;
  /** What the subject's values now read as in the events, after `erased:` (`subjectTag`). */
  tag: string;
  /**
   * Set when a contact's deletion erased the subject: that contact's own content (its automation runs)
   * was shredded with it, whatever address the runs name.
   */
  contactId?: string;
}

/** The erased subject as the scrubbers compare it. */
export interface SubjectMatch {
  teamId: string;
  /** Bare and lower-cased, as the key table's subject is (`subjectAddress`). */
  address: string;
  placeholder: string;
  contactId: string | null;
}

export const subjectMatch = (subject: ErasedSubject): SubjectMatch => ({
  teamId: subject.teamId,
  address: subjectAddress(subject.address),
  placeholder: erasedText(subject.tag),
  contactId: subject.contactId ?? null,
});

/**
 * Whether a mailbox is the subject, decided as sealing decides whose key seals it; one already scrubbed
 * counts too, so a pass that stopped half-way, or a table of another projection, still finds the row.
 */
export const isSubjectMailbox = (subject: SubjectMatch, mailbox: string) =>
  mailbox === subject.placeholder || subjectAddress(mailbox) === subject.address;

/** The mailboxes with the subject's read as its placeholder, as the events open them. */
export const withoutSubject = (subject: SubjectMatch, mailboxes: readonly string[]) =>
  mailboxes.map((mailbox) => (isSubjectMailbox(subject, mailbox) ? subject.placeholder : mailbox));

/** The columns of a row that hold lists of mailboxes. */
type MailboxLists<Row> = { [Column in keyof Row]: Row[Column] extends string[] ? Column : never }[keyof Row];

/**
 * A message's sender and the given lists of mailboxes with the subject's read as its placeholder, or
 * null when none of them is the subject's: the row then keeps its mailboxes as they are.
 */
export function scrubbedMailboxes<Row extends { from_address: string }, List extends MailboxLists<Row>>(
  subject: SubjectMatch,
  row: Row,
  lists: readonly List[],
): Pick<Row, "from_address" | List> | null {
  const scrubbed = { from_address: withoutSubject(subject, [row.from_address])[0]! } as Pick<Row, "from_address" | List>;
  let moved = scrubbed.from_address !== row.from_address;
  for (const list of lists) {
    const mailboxes = row[list] as string[];
    const without = withoutSubject(subject, mailboxes);
    moved ||= without.some((mailbox, i) => mailbox !== mailboxes[i]);
    (scrubbed as Record<List, string[]>)[list] = without;
  }
  return moved ? scrubbed : null;
}

/** Whether a free-form value (a payload, a reply, an error) names the subject the way sealing links content to it (`addressesIn`). */
export const namesSubject = (subject: SubjectMatch, value: unknown) =>
  addressesIn(value).some((address) => subjectAddress(address) === subject.address);

/**
 * A cheap test a scan can make of a row's text before the exact one in TypeScript: the address in any case,
 * or the placeholder. `strpos` rather than LIKE: an address may hold `_` and `%`.
 */
export const mentions = (subject: SubjectMatch, text: RawBuilder<unknown>) =>
  sql<boolean>`(strpos(lower(${text}), ${subject.address}) > 0 OR strpos(${text}, ${subject.placeholder}) > 0)`;
