/**
 * The path a schema issue points at, written as a caller reads it (`content[0].text`), for the
 * errors of the plain API: the first issue's path when there are several.
 *
 * @internal
 */
import type { SchemaIssue } from "effect"

/** The keys from the root of the decoded value to the first failing value. */
const keysOf = (issue: SchemaIssue.Issue): Array<PropertyKey> => {
  switch (issue._tag) {
    case "Pointer":
      return [...issue.path, ...keysOf(issue.issue)]
    case "Filter":
    case "Encoding":
      return keysOf(issue.issue)
    case "Composite":
    case "AnyOf": {
      const first = issue.issues[0]
      return first === undefined ? [] : keysOf(first)
    }
    default:
      return []
  }
}

/** `a.b[0].c`; empty for the root. */
export const issuePath = (issue: SchemaIssue.Issue): string =>
  keysOf(issue).map((key, i) =>
    typeof key === "number" ? `[${key}]` : `${i === 0 ? "" : "."}${String(key)}`
  ).join("")
