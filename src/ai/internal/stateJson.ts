/**
 * A fast path for a `WindowState`'s stored text (docs/design.md item 124): the JSON text
 * `WindowState.encodeJson` writes, built by hand for a state whose every field keeps the
 * schema's rules — checked here, field by field, as the schema checks them.
 *
 * A stable window writes its state at every call; the schema's encoder (its interpreter's steps
 * per field, in an `Effect`) was a sizeable part of a call's end. Like the item encoder's fast
 * path (`src/internal/fastEncode.ts`), this one is conservative: it answers `undefined` for
 * anything it does not reproduce — an object that is not a `WindowState`, a field that breaks a
 * rule, an optional key present with the value `undefined`, a key the schema does not know — and
 * the caller then encodes with the schema, so every error is the schema's own. The property
 * test in `test/ai/WindowStoreTexts.test.ts` holds the two to the same text, key order included.
 *
 * @internal
 */
import { WindowState } from "../WindowState.ts"

/** A whole number ≥ 0 (the schema's `count`). */
const isCount = (value: unknown): value is number => typeof value === "number" && Number.isSafeInteger(value) && value >= 0

/** An array of exactly two elements. */
const isPair = (value: unknown): value is readonly [unknown, unknown] => Array.isArray(value) && value.length === 2

/** A run: a whole number, then a count. */
const isRun = (value: unknown): boolean =>
  isPair(value) && typeof value[0] === "number" && Number.isSafeInteger(value[0]) && isCount(value[1])

const isCountPair = (value: unknown): boolean => isPair(value) && isCount(value[0]) && isCount(value[1])

/** Whether `value` is an array whose every element keeps `rule` (a hole keeps none). */
const every = (value: unknown, rule: (element: unknown) => boolean): value is ReadonlyArray<unknown> => {
  if (!Array.isArray(value)) return false
  const elements: ReadonlyArray<unknown> = value
  for (let i = 0; i < elements.length; i++) if (!rule(elements[i])) return false
  return true
}

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** The keys every state has, in the schema's order. */
const required = [
  "format",
  "fingerprint",
  "revision",
  "historyLength",
  "historyDigest",
  "window",
  "windowTokens",
  "toolTokens",
  "calls",
  "compactions",
  "appends",
  "addedTokens",
  "updatedAtMillis"
] as const

/** The keys a state may have, in the schema's order. */
const keys = [...required, "summary", "shortened", "masked", "references", "calibration"] as const

/** The required keys whose values are counts. */
const counts = ["revision", "historyLength", "windowTokens", "toolTokens", "calls", "compactions", "appends", "addedTokens"] as const

const known: ReadonlySet<string> = new Set(keys)

/** Whether the object's own keys are all in `allowed`, none of them holding `undefined`. */
const onlyKeys = (value: Readonly<Record<string, unknown>>, allowed: ReadonlySet<string>): boolean => {
  for (const key of Object.keys(value)) {
    if (!allowed.has(key) || value[key] === undefined) return false
  }
  return true
}

const summaryKeys: ReadonlySet<string> = new Set(["id", "text", "tokens", "covers"])
const calibrationKeys: ReadonlySet<string> = new Set(["ratio", "model"])

/** The summary's encoded form, or `undefined` when it breaks a rule. */
const summaryOf = (value: unknown): object | undefined => {
  if (!isRecord(value) || !onlyKeys(value, summaryKeys)) return undefined
  const { covers, id, text, tokens } = value
  if (typeof id !== "string" || typeof text !== "string" || !isCount(tokens) || !every(covers, isRun)) return undefined
  return { id, text, tokens, covers }
}

/** The calibration's encoded form, or `undefined` when it breaks a rule. */
const calibrationOf = (value: unknown): object | undefined => {
  if (!isRecord(value) || !onlyKeys(value, calibrationKeys)) return undefined
  const { model, ratio } = value
  if (typeof ratio !== "number" || !Number.isFinite(ratio) || ratio <= 0) return undefined
  if (model !== undefined && typeof model !== "string") return undefined
  return model === undefined ? { ratio } : { ratio, model }
}

/**
 * The text `WindowState.encodeJson` writes for `state`, or `undefined` when this path does not
 * reproduce it (the caller encodes with the schema).
 */
export const stateJson = (state: WindowState): string | undefined => {
  const s: unknown = state
  if (!(state instanceof WindowState) || !isRecord(s) || !onlyKeys(s, known)) return undefined
  if (s["format"] !== 1 || typeof s["fingerprint"] !== "string" || typeof s["historyDigest"] !== "string") return undefined
  if (!counts.every((key) => isCount(s[key])) || !every(s["window"], isRun)) return undefined
  const updatedAtMillis = s["updatedAtMillis"]
  if (typeof updatedAtMillis !== "number" || !Number.isFinite(updatedAtMillis)) return undefined
  const out: Record<string, unknown> = {}
  for (const key of required) out[key] = s[key]
  if ("summary" in s) {
    const summary = summaryOf(s["summary"])
    if (summary === undefined) return undefined
    out["summary"] = summary
  }
  if ("shortened" in s) {
    if (!every(s["shortened"], isCountPair)) return undefined
    out["shortened"] = s["shortened"]
  }
  if ("masked" in s) {
    if (!every(s["masked"], isCount)) return undefined
    out["masked"] = s["masked"]
  }
  if ("references" in s) {
    if (!every(s["references"], isCountPair)) return undefined
    out["references"] = s["references"]
  }
  if ("calibration" in s) {
    const calibration = calibrationOf(s["calibration"])
    if (calibration === undefined) return undefined
    out["calibration"] = calibration
  }
  return JSON.stringify(out)
}
