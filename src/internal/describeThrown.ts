/**
 * Untrusted values in words, for the messages of the errors that custom scorers, slicers and
 * placers fail with.
 *
 * A value from user code may be an object without a prototype, or one whose `toString` (or an
 * Error whose `name` or `message` getter) throws; `String(value)` then throws too. These
 * describers run while an error is being built, inside the very effect that turns a custom
 * function's failure into a typed error, so a throw here would turn that typed failure into a
 * defect. They therefore never throw.
 *
 * @internal
 */

/** What a value is, in words: a string quoted (`"5"`, not `5`), anything else as `String` shows it. */
export const describeValue = (value: unknown): string => {
  try {
    return typeof value === "string" ? JSON.stringify(value) : String(value)
  } catch {
    return "a value that cannot be shown"
  }
}

/** What was thrown, in words: `TypeError: x is undefined`, or the value itself. */
export const describeThrown = (cause: unknown): string => {
  try {
    if (cause instanceof Error) return `${cause.name}: ${cause.message}`
  } catch {
    return "a value that cannot be shown"
  }
  return describeValue(cause)
}
