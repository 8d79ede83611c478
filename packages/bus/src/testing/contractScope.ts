let scopes = 0;

export const ackWaitMs = 1_000;

/** Subjects and durables of one test, so that tests sharing a fixture never see each other's messages. */
export function scope() {
  const ns = `c${++scopes}${Math.random().toString(36).slice(2, 8)}`;
  return {
    subject: (name: string) => `events.${ns}.${name}`,
    durable: (name: string) => `${ns}-${name}`,
    msgId: (name: string) => `${ns}-${name}`,
  };
}
