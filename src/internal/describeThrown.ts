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

/**
 * A value as JSON shows it, for an option's error (`(got "1000")`, `(got {"a":1})`, never
 * `[object Object]`); what JSON cannot show (`NaN`, `Infinity`, `undefined`, a function, a
 * bigint, a circular object) in words. At most 120 characters.
 */
export const describeJson = (value: unknown): string => {
  try {
    if (typeof value === "function") return "a function"
    if (typeof value === "bigint") return `${value}n`
    if (typeof value === "number" && !Number.isFinite(value)) return String(value)
    if (value === undefined || typeof value === "symbol") return String(value)
    const text = JSON.stringify(value)
    return text.length > 120 ? `${text.slice(0, 117)}...` : text
  } catch {
    return "a value that cannot be shown as JSON"
  }
}
