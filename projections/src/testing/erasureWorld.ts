import { randomUUID } from "node:crypto";
import { broadcastEmailId } from "@tidings/core";
import { broadcastStream, contactStream, emailStream, inboundEmailStream, webhookDeliveryStream, webhookStream } from "@tidings/domain";
import { automationRunStream, contactImportStream, suppressionStream } from "@tidings/domain";
import type { EventToAppend } from "@tidings/eventstore";
import { personalEvents as events } from "@tidings/domain/testing";

/**
 * The erasure test's world: Ada, who is erased, and Cy, who is not, in one team's mail, broadcast,
 * inbound mail, webhooks, imports, automation runs and suppression list; and Ada again in another team.
 * Each content value of Ada's is a canary; Cy's are plain words.
 */
export function erasureWorld() {
  const u = randomUUID().slice(0, 8);
  const team = randomUUID();
  const otherTeam = randomUUID();

  /** The person erased: every value of theirs is a canary that no row may hold afterwards. */
  const ada = { email: `ada.canary.${u}@example.com`, firstName: `Adalinda${u}`, lastName: `Canarywood${u}`, plan: `gold-canary-${u}` };
  const adaContent = {
    order: `adaorder-${u}`,
    invoice: `adainvoice-${u}.pdf`,
    link: `https://shop.test/adalink-${u}`,
    inbound: `adainbound-${u}`,
    photo: `adaphoto-${u}.jpg`,
    ccInbound: `cycopiedada-${u}`,
    runError: `adarunerror-${u}`,
    importError: `cybogus-${u}`,
  };
  const canaries = [ada.email, ada.firstName, ada.lastName, ada.plan, ...Object.values(adaContent)];
  const cy = `cy.${u}@example.com`;

  const ids = {
    ada: randomUUID(),
    cy: randomUUID(),
    toBoth: randomUUID(),
    replyToAda: randomUUID(),
    toCy: randomUUID(),
    broadcast: randomUUID(),
    inboundFromAda: randomUUID(),
    inboundCopyingAda: randomUUID(),
    inboundFromCy: randomUUID(),
    webhook: randomUUID(),
    deliveryAboutAda: randomUUID(),
    deliveryRepliedAda: randomUUID(),
    deliveryAboutCy: randomUUID(),
    importNamingAda: randomUUID(),
    importOther: randomUUID(),
    runOfAda: randomUUID(),
    runNamingAda: randomUUID(),
    runOfCy: randomUUID(),
    suppression: randomUUID(),
    otherTeamEmail: randomUUID(),
  };
  const broadcastEmail = (contactId: string) => broadcastEmailId(ids.broadcast, contactId);

  function streams(): [string, EventToAppend[]][] {
    const mailbox = `Adalinda Canarywood <${ada.email.toUpperCase()}>`;
    return [
      [contactStream(ids.ada), [events.contactCreated(team, ids.ada, ada)]],
      [contactStream(ids.cy), [events.contactCreated(team, ids.cy, { email: cy, firstName: "Cy", lastName: "Young", plan: "basic" })]],
      [
        emailStream(ids.toBoth),
        [
          events.emailQueued(team, ids.toBoth, {
            to: [mailbox, cy],
            subject: adaContent.order,
            html: `<p>Hello ${ada.firstName}</p>`,
            attachment: adaContent.invoice,
          }),
          ...events.emailDelivered(team, ids.toBoth, [ada.email, cy]),
          ...events.emailEngaged(team, ids.toBoth, adaContent.link),
        ],
      ],
      [
        emailStream(ids.replyToAda),
        [events.emailQueued(team, ids.replyToAda, { to: [cy], replyTo: [ada.email], subject: "cyorder", html: "<p>Cy</p>" })],
      ],
      [
        emailStream(ids.toCy),
        [events.emailQueued(team, ids.toCy, { to: [cy], subject: "cyonly", html: "<p>Cy only</p>", attachment: "cy.pdf" })],
      ],
      [
        broadcastStream(ids.broadcast),
        events.broadcastSent(team, ids.broadcast, [
          { contactId: ids.ada, email: ada.email },
          { contactId: ids.cy, email: cy },
        ]),
      ],
      [
        emailStream(broadcastEmail(ids.ada)),
        [
          events.emailQueued(team, broadcastEmail(ids.ada), {
            to: [ada.email],
            subject: "Spring news",
            html: `<p>Hi ${ada.firstName}</p>`,
            broadcastId: ids.broadcast,
          }),
        ],
      ],
      [
        emailStream(broadcastEmail(ids.cy)),
        [
          events.emailQueued(team, broadcastEmail(ids.cy), {
            to: [cy],
            subject: "Spring news",
            html: "<p>Hi Cy</p>",
            broadcastId: ids.broadcast,
          }),
        ],
      ],
      [
        inboundEmailStream(ids.inboundFromAda),
        [
          events.inboundReceived(team, ids.inboundFromAda, {
            from: mailbox,
            to: ["inbox@receiving.test"],
            subject: adaContent.inbound,
            attachment: adaContent.photo,
          }),
        ],
      ],
      [
        inboundEmailStream(ids.inboundCopyingAda),
        [
          events.inboundReceived(team, ids.inboundCopyingAda, {
            from: cy,
            to: ["inbox@receiving.test"],
            cc: [ada.email],
            subject: adaContent.ccInbound,
          }),
        ],
      ],
      [
        inboundEmailStream(ids.inboundFromCy),
        [events.inboundReceived(team, ids.inboundFromCy, { from: cy, to: ["inbox@receiving.test"], subject: "cyinbound" })],
      ],
      [webhookStream(ids.webhook), [events.webhookCreated(team, ids.webhook)]],
      [
        webhookDeliveryStream(ids.deliveryAboutAda),
        events.webhookDelivered(team, {
          deliveryId: ids.deliveryAboutAda,
          webhookId: ids.webhook,
          eventType: "contact.updated",
          data: { email: ada.email, first_name: ada.firstName, last_name: ada.lastName },
          response: "bad request",
        }),
      ],
      [
        webhookDeliveryStream(ids.deliveryRepliedAda),
        events.webhookDelivered(team, {
          deliveryId: ids.deliveryRepliedAda,
          webhookId: ids.webhook,
          eventType: "email.sent",
          data: { to: [cy], subject: "cyorder" },
          response: `no such user: ${ada.email}`,
        }),
      ],
      [
        webhookDeliveryStream(ids.deliveryAboutCy),
        events.webhookDelivered(team, {
          deliveryId: ids.deliveryAboutCy,
          webhookId: ids.webhook,
          eventType: "email.sent",
          data: { to: [cy], subject: "cyonly" },
          response: "bad request",
        }),
      ],
      // A deleted webhook's deliveries stay, and are reached all the same.
      [
        webhookStream(ids.webhook),
        [events.anEvent("webhook", "WebhookDeleted", team, { webhookId: ids.webhook, deletedAt: new Date().toISOString() })],
      ],
      [
        contactImportStream(ids.importNamingAda),
        events.importWithErrors(team, ids.importNamingAda, [
          { line: 2, reason: `already a contact: ${ada.email}` },
          { line: 3, reason: `not an address: ${adaContent.importError}` },
        ]),
      ],
      [
        contactImportStream(ids.importOther),
        events.importWithErrors(team, ids.importOther, [{ line: 2, reason: "not an address: nobody" }]),
      ],
      [
        automationRunStream(ids.runOfAda),
        events.automationRun(team, {
          runId: ids.runOfAda,
          contactId: ids.ada,
          payload: { plan: "gold" },
          output: { email_id: ids.toBoth },
          error: adaContent.runError,
        }),
      ],
      [
        automationRunStream(ids.runNamingAda),
        events.automationRun(team, {
          runId: ids.runNamingAda,
          contactId: ids.cy,
          payload: {},
          output: { note: `for ${ada.email}` },
          error: "cyrunerror",
        }),
      ],
      [
        automationRunStream(ids.runOfCy),
        events.automationRun(team, {
          runId: ids.runOfCy,
          contactId: ids.cy,
          payload: {},
          output: { email_id: ids.toCy },
          error: "cyonlyrunerror",
        }),
      ],
      [suppressionStream(ids.suppression), [events.suppressionAdded(team, ids.suppression, ada.email)]],
      [contactStream(randomUUID()), [events.contactCreated(otherTeam, randomUUID(), ada)]],
      [
        emailStream(ids.otherTeamEmail),
        [events.emailQueued(otherTeam, ids.otherTeamEmail, { to: [ada.email], subject: adaContent.order, html: "<p>other</p>" })],
      ],
    ];
  }

  return { team, otherTeam, ada, adaContent, cy, canaries, ids, streams: streams() };
}
