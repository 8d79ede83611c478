/**
 * Shares a lookup among callers asking for the same key at once, without ever answering one from a
 * lookup that started before it asked: a caller arriving while a lookup runs waits for the next one,
 * which starts when that one ends and serves everyone who arrived meanwhile. At most one lookup per key
 * is in flight, whatever the rate of callers.
 */
export function shareLookups<Key, Value>(lookUp: (key: Key) => Promise<Value>): (key: Key) => Promise<Value> {
  const running = new Map<Key, Promise<Value>>();
  const next = new Map<Key, Promise<Value>>();

  const start = (key: Key) => {
    const lookup = lookUp(key);
    running.set(key, lookup);
    const done = () => {
      if (running.get(key) === lookup) running.delete(key);
    };
    lookup.then(done, done);
    return lookup;
  };

  return (key) => {
    const current = running.get(key);
    if (!current) return start(key);
    let following = next.get(key);
    if (!following) {
      following = current
        .catch(() => undefined)
        .then(() => {
          next.delete(key);
          return start(key);
        });
      next.set(key, following);
    }
    return following;
  };
}
