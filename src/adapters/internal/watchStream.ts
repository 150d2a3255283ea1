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

/** What the watcher is told: each chunk (after it was passed on), and the end, once. */
export interface Watcher<A> {
  readonly chunk: (chunk: A) => void
  readonly end: (end: End) => Promise<void>
}

/** `source`, passed on unchanged, with `watcher` told of its chunks and its end. */
export const watchStream = <A>(source: ReadableStream<A>, watcher: Watcher<A>): ReadableStream<A> => {
  const reader = source.getReader()
  let ended: Promise<void> | undefined
  let cancelled: { readonly reason: unknown } | undefined
  // Told once; whoever comes second (a cancel and the read it ended) waits for the same end.
  const end = (how: End) => (ended ??= watcher.end(how))
  return new ReadableStream<A>({
    async pull(controller) {
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
    },
    async cancel(reason) {
      cancelled = { reason }
      try {
        await reader.cancel(reason)
      } finally {
        await end({ _tag: "Cancelled", reason })
      }
    }
  }, { highWaterMark: 0 })
}
