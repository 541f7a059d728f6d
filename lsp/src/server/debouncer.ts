/** One pending run at a time: scheduling again replaces the pending run (the validation after typing). */
export class Debouncer {
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly run: () => void) {}

  /** Runs after `delay` ms, unless scheduled again or cancelled before. */
  schedule(delay: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(this.run, delay);
  }

  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Whether a run is scheduled: set from `schedule` until the run cancels it or `cancel` is called. */
  get pending(): boolean {
    return this.timer !== undefined;
  }
}
