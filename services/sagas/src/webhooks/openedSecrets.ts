import type { Sealer } from "@tidings/core";

/**
 * The sealer with what it opened kept: every attempt signs with its webhook's secrets, and opening one is
 * an AES-GCM decipher each time (about 2% of a webhook-heavy sagas process). A sealed value never changes
 * meaning, so an entry is never stale; a rotation seals a new value. Bounded by forgetting all at `max`.
 */
export function rememberingOpenedSecrets(sealer: Sealer, max = 1_000): Sealer {
  const opened = new Map<string, string>();
  return {
    ...sealer,
    openText(sealed) {
      let text = opened.get(sealed);
      if (text === undefined) {
        text = sealer.openText(sealed);
        if (opened.size >= max) opened.clear();
        opened.set(sealed, text);
      }
      return text;
    },
  };
}
