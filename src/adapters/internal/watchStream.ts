/**
 * A `ReadableStream` seen through without being changed: every chunk of the source is passed on
 * as it is read, the same object and at once, and the watcher is told of each chunk after it
 * was passed on, then of how the stream ended — closed, errored or cancelled by its reader —
 * before that end reaches the reader (so that what the watcher records is in place when the
 * reader sees the end).
 *
 * A pull source with no buffer of its own (`highWaterMark: 0`): the source is read only when
 * the reader asks, as if it were read directly. (Not a `TransformStream`: behind `pipeThrough`
 * its one `cancel` hook is called both when the reader cancels and when the source fails, with
 * only the reason to tell them apart.)
 *
 * @internal
 */

/** How a watched stream ended. */
export type End =
  | { readonly _tag: "Closed" }
  | { readonly _tag: "Errored"; readonly error: unknown }
  | { readonly _tag: "Cancelled"; readonly reason: unknown }
  /** Neither read to its end nor cancelled: its reader was idle too long, or it was garbage (design 95). */
  | { readonly _tag: "Abandoned"; readonly why: "idle" | "garbage" }

/**
 * How an abandoned stream is found (design 95): `idleMs`, how long the reader may go without
 * asking for a part (from the last one handed over; `Infinity`: never); `registry`, where the
 * returned stream is registered, its held value the function that settles it when it is garbage.
 */
export interface Abandon {
  readonly idleMs: number
  readonly registry: FinalizationRegistry<() => void> | undefined
}

/** A registry that settles a garbage stream: one per middleware (a registry that is garbage calls nothing). */
export const makeRegistry = (): FinalizationRegistry<() => void> => new FinalizationRegistry((settle) => settle())

/** A timer that does not keep the process alive (Node's `unref`, where there is one). */
const unrefTimer = (f: () => void, ms: number): ReturnType<typeof setTimeout> => {
  const timer = setTimeout(f, ms)
  if (typeof timer === "object" && timer !== null && "unref" in timer && typeof timer.unref === "function") timer.unref()
  return timer
}

/** What the watcher is told: each chunk (after it was passed on), and the end, once. */
export interface Watcher<A> {
  readonly chunk: (chunk: A) => void
  readonly end: (end: End) => Promise<void>
}

/** `source`, passed on unchanged, with `watcher` told of its chunks and its end. */
export const watchStream = <A>(
  source: ReadableStream<A>,
  watcher: Watcher<A>,
  abandon: Abandon = { idleMs: Number.POSITIVE_INFINITY, registry: undefined }
): ReadableStream<A> => {
  const reader = source.getReader()
  let ended: Promise<void> | undefined
  let cancelled: { readonly reason: unknown } | undefined
  let abandoned: "idle" | "garbage" | undefined
  let timer: ReturnType<typeof setTimeout> | undefined
  const token = {}
  // Told once; whoever comes second (a cancel and the read it ended) waits for the same end.
  const end = (how: End) => {
    if (timer !== undefined) clearTimeout(timer)
    abandon.registry?.unregister(token)
    return (ended ??= watcher.end(how))
  }
  // Abandoned: the provider's stream is cancelled and the call settled, as a cancel would. Holds
  // no reference to the returned stream (the registry's held value must not keep it alive).
  const settleAbandoned = (why: "idle" | "garbage") => {
    if (ended !== undefined) return
    abandoned = why
    const reason = new Error(`effect-cupel: the stream was abandoned (${why === "idle" ? `no read for ${abandon.idleMs} ms` : "garbage collected"}) and settled as interrupted`)
    void end({ _tag: "Abandoned", why }).catch(() => undefined)
    reader.cancel(reason).catch(() => undefined)
  }
  const waitForReader = () => {
    if (Number.isFinite(abandon.idleMs) && ended === undefined) timer = unrefTimer(() => settleAbandoned("idle"), abandon.idleMs)
  }
  const stream = new ReadableStream<A>({
    async pull(controller) {
      if (timer !== undefined) clearTimeout(timer)
      if (abandoned !== undefined) {
        // A reader back after the idle time: the call was settled; it is told so, once more changes nothing.
        return controller.error(new Error(`effect-cupel: this stream was left unread for ${abandon.idleMs} ms and settled as interrupted`))
      }
      let next: Awaited<ReturnType<typeof reader.read>>
      try {
        next = await reader.read()
      } catch (error) {
        if (cancelled !== undefined) return end({ _tag: "Cancelled", reason: cancelled.reason })
        // The source's error reaches the reader whatever the watcher does with it.
        try {
          await end({ _tag: "Errored", error })
        } finally {
          controller.error(error)
        }
        return
      }
      // A read pending when the reader cancelled ends as done: that is the cancellation's end,
      // and the stream is closed already.
      if (cancelled !== undefined) return end({ _tag: "Cancelled", reason: cancelled.reason })
      if (next.done) {
        try {
          await end({ _tag: "Closed" })
        } finally {
          controller.close()
        }
        return
      }
      controller.enqueue(next.value)
      watcher.chunk(next.value)
      waitForReader()
    },
    async cancel(reason) {
      if (abandoned !== undefined) return
      cancelled = { reason }
      try {
        await reader.cancel(reason)
      } finally {
        await end({ _tag: "Cancelled", reason })
      }
    }
  }, { highWaterMark: 0 })
  abandon.registry?.register(stream, () => settleAbandoned("garbage"), token)
  waitForReader()
  return stream
}
