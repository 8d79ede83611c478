import type { Decider } from "../decider.js";
import type { InboundEmail, InboundEmailEvent } from "./events.js";

export const inboundEmailStream = (inboundId: string) => `inbound-${inboundId}`;

export type InboundEmailCommand = { type: "ReceiveInboundEmail"; email: InboundEmail };
export type InboundEmailState = { status: "none" } | { status: "received"; teamId: string };

export const inboundEmailDecider: Decider<InboundEmailCommand, InboundEmailEvent, InboundEmailState> = {
  initialState: { status: "none" },
  evolve: (_state, event) => ({ status: "received", teamId: event.data.teamId }),
  // The stream's id derives from the message (the intake's `inboundEmailId`): the same message again is
  // the sending server's retry after a lost 250, and records nothing.
  decide: (command, state) => (state.status === "none" ? [{ type: "InboundEmailReceived", data: command.email }] : []),
};
