import { nanos, RetentionPolicy, StorageType, type JetStreamManager, type StreamConfig } from "nats";

/**
 * Creates the stream, or brings an existing one to this configuration. JetStream 2.9 answers `add` with
 * an error when the name exists with other settings, and `update` accepts the changes we make here.
 */
export async function ensureStream(
  jsm: JetStreamManager,
  config: { name: string; subject: string; duplicateWindowMs: number; maxAgeMs: number; allowDirect?: boolean },
): Promise<void> {
  const wanted: Partial<StreamConfig> & { name: string } = {
    name: config.name,
    subjects: [config.subject],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    duplicate_window: nanos(config.duplicateWindowMs),
    max_age: nanos(config.maxAgeMs),
    allow_direct: config.allowDirect ?? false,
  };
  try {
    await jsm.streams.add(wanted);
  } catch (error) {
    if (!/already in use/i.test(String((error as Error).message))) throw error;
    await jsm.streams.update(config.name, wanted);
  }
}
