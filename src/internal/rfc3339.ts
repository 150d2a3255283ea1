/**
 * Strict RFC 3339 date-time parsing to epoch milliseconds.
 *
 * `Date.parse` accepts strings without an offset and reads them as local time, and accepts
 * date-only forms; both would silently move an instant. This parser accepts only full date-times
 * with an explicit offset (`Z` or `±HH:MM`), so every accepted string names exactly one instant.
 * Seconds may be omitted, as TOML 1.1 allows (`2024-01-01T00:00Z`). Fractions beyond
 * milliseconds are truncated: `DateTime.Utc` holds milliseconds.
 *
 * @internal
 */

const pattern =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/

/** @internal */
export type ParseResult =
  | { readonly ok: true; readonly epochMillis: number }
  | { readonly ok: false; readonly message: string }

const daysInMonth = (year: number, month: number): number => {
  if (month === 2) {
    const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0
    return leap ? 29 : 28
  }
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31
}

// Days from 1970-01-01 to the given proleptic Gregorian date (H. Hinnant's days_from_civil).
const daysFromCivil = (year: number, month: number, day: number): number => {
  const y = month <= 2 ? year - 1 : year
  const era = Math.floor(y / 400)
  const yoe = y - era * 400
  const mp = (month + 9) % 12
  const doy = Math.floor((153 * mp + 2) / 5) + day - 1
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy
  return era * 146097 + doe - 719468
}

/** The decimal digit at `i`, or -1 (also past the end, where `charCodeAt` gives NaN). */
const digitAt = (s: string, i: number): number => {
  const d = s.charCodeAt(i) - 48
  return d >= 0 && d <= 9 ? d : -1
}

/** The two-digit number at `i`, or -1. */
const twoAt = (s: string, i: number): number => {
  const a = digitAt(s, i)
  const b = digitAt(s, i + 1)
  return a < 0 || b < 0 ? -1 : a * 10 + b
}

/**
 * The instant `input` names, in epoch milliseconds, or `undefined` when it is not an RFC 3339
 * date-time that {@link parse} accepts. The same grammar and rules as {@link parse}, read
 * character by character: decoding a million timestamps with the regular expression and its
 * capture strings took a third of a microsecond each. {@link parse} gives the reasons.
 *
 * @internal
 */
export const parseMillis = (input: string): number | undefined => {
  const length = input.length
  const century = twoAt(input, 0)
  const yy = twoAt(input, 2)
  if (century < 0 || yy < 0 || input.charCodeAt(4) !== 45 || input.charCodeAt(7) !== 45) return undefined
  const year = century * 100 + yy
  const month = twoAt(input, 5)
  const day = twoAt(input, 8)
  const separator = input.charCodeAt(10)
  // "T", "t" or a space
  if (month < 0 || day < 0 || (separator !== 84 && separator !== 116 && separator !== 32)) return undefined
  const hour = twoAt(input, 11)
  const minute = twoAt(input, 14)
  if (hour < 0 || input.charCodeAt(13) !== 58 || minute < 0) return undefined
  let i = 16
  let second = 0
  let millis = 0
  if (input.charCodeAt(i) === 58) {
    second = twoAt(input, i + 1)
    if (second < 0) return undefined
    i += 3
    if (input.charCodeAt(i) === 46) {
      const start = ++i
      while (digitAt(input, i) >= 0) i++
      if (i === start) return undefined
      // Milliseconds: the first three digits, padded with zeros; further digits are truncated.
      millis = digitAt(input, start) * 100 +
        (start + 1 < i ? digitAt(input, start + 1) * 10 : 0) +
        (start + 2 < i ? digitAt(input, start + 2) : 0)
    }
  }
  let offsetMinutes = 0
  const zone = input.charCodeAt(i)
  if (zone === 90 || zone === 122) {
    if (i + 1 !== length) return undefined
  } else if (zone === 43 || zone === 45) {
    const oh = twoAt(input, i + 1)
    const om = twoAt(input, i + 4)
    if (i + 6 !== length || oh < 0 || input.charCodeAt(i + 3) !== 58 || om < 0) return undefined
    if (oh > 23 || om > 59) return undefined
    offsetMinutes = (zone === 45 ? -1 : 1) * (oh * 60 + om)
  } else {
    return undefined
  }
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined
  if (hour > 23 || minute > 59 || second > 59) return undefined
  return daysFromCivil(year, month, day) * 86_400_000 +
    ((hour * 60 + minute - offsetMinutes) * 60 + second) * 1000 + millis
}

/** @internal */
export const parse = (input: string): ParseResult => {
  // The common case without the regular expression; only a string it refuses needs the reason.
  const fast = parseMillis(input)
  if (fast !== undefined) return { ok: true, epochMillis: fast }
  const m = pattern.exec(input)
  if (m === null) {
    return {
      ok: false,
      message: `Expected an RFC 3339 date-time with an offset, such as "2024-06-01T12:00:00Z" or ` +
        `"2024-06-01T14:00:00+02:00", got ${JSON.stringify(input)}`
    }
  }
  const year = Number(m[1])
  const month = Number(m[2])
  const day = Number(m[3])
  const hour = Number(m[4])
  const minute = Number(m[5])
  const second = m[6] === undefined ? 0 : Number(m[6])
  const millis = m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, "0"))
  if (month < 1 || month > 12) return { ok: false, message: `Month ${m[2]} is out of range in ${JSON.stringify(input)}` }
  if (day < 1 || day > daysInMonth(year, month)) {
    return { ok: false, message: `Day ${m[3]} does not exist in ${m[1]}-${m[2]} in ${JSON.stringify(input)}` }
  }
  if (hour > 23) return { ok: false, message: `Hour ${m[4]} is out of range in ${JSON.stringify(input)}` }
  if (minute > 59) return { ok: false, message: `Minute ${m[5]} is out of range in ${JSON.stringify(input)}` }
  // A leap second (60) cannot be represented as a distinct instant in epoch milliseconds.
  if (second > 59) return { ok: false, message: `Second ${m[6]} is out of range in ${JSON.stringify(input)}` }
  let offsetMinutes = 0
  if (m[8] === undefined) {
    const oh = Number(m[10])
    const om = Number(m[11])
    if (oh > 23 || om > 59) return { ok: false, message: `Offset ${m[9]}${m[10]}:${m[11]} is out of range in ${JSON.stringify(input)}` }
    offsetMinutes = (m[9] === "-" ? -1 : 1) * (oh * 60 + om)
  }
  const epochMillis = daysFromCivil(year, month, day) * 86_400_000 +
    ((hour * 60 + minute - offsetMinutes) * 60 + second) * 1000 + millis
  return { ok: true, epochMillis }
}
