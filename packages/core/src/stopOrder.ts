/**
 * The parts of a process, stopped in the reverse of the order they were added: what uses a thing stops
 * before the thing it uses. A part that fails to stop is reported and the next one still stops. While the
 * stop runs, `unfinished` names the parts not yet stopped (with what each says it still holds), for the
 * line a process logs when its stop runs out of time and it exits anyway.
 */
export class StopOrder {
  private readonly parts: { name: string; stop: () => Promise<void> | void; holds?: () => string[] }[] = [];
  private readonly stopped = new Set<string>();
  private running: Promise<void> | undefined;

  /** `holds`: what the part still has under way, when asked while it stops. */
  add(name: string, stop: () => Promise<void> | void, holds?: () => string[]): void {
    this.parts.push({ name, stop, ...(holds ? { holds } : {}) });
  }

  /** Stops every part once; a second call joins the first. */
  stop(onError: (error: unknown, part: string) => void): Promise<void> {
    this.running ??= (async () => {
      for (const part of [...this.parts].reverse()) {
        try {
          await part.stop();
        } catch (error) {
          onError(error, part.name);
        }
        this.stopped.add(part.name);
      }
    })();
    return this.running;
  }

  /** The parts not stopped yet, in the order they will stop, each with what it still holds. */
  unfinished(): string[] {
    return [...this.parts]
      .reverse()
      .filter((part) => !this.stopped.has(part.name))
      .map((part) => {
        const held = part.holds?.() ?? [];
        return held.length > 0 ? `${part.name} (${held.join("; ")})` : part.name;
      });
  }
}
