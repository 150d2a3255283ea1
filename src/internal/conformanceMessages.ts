/**
 * Human-readable messages for the conformance runner and the CLI: schema failures as one line per
 * problem with a dotted path, platform errors in plain words.
 *
 * @internal
 */
import type { PlatformError, Schema } from "effect"
import { SchemaIssue } from "effect"

const typeNames: Record<string, string> = {
  Number: "a number",
  String: "a string",
  Boolean: "true or false",
  Objects: "an object",
  Arrays: "an array",
  Null: "null"
}

const show = (value: unknown): string => {
  if (value === undefined) return "nothing"
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}

// Named schemas (`Score`, `PlaceInput`) would read "Expected Score"; the JSON type says more.
const formatter = SchemaIssue.makeFormatterStandardSchemaV1({
  leafHook: (issue) => {
    if (issue._tag === "MissingKey") return "is required but missing"
    if (issue._tag === "InvalidType") {
      const name = typeNames[issue.ast._tag]
      if (name !== undefined) {
        return SchemaIssue.hasInput(issue) ? `Expected ${name}, got ${show(issue.input)}` : `Expected ${name}`
      }
    }
    return SchemaIssue.defaultLeafHook(issue)
  }
})

/** `["scored", 0, "score"]` → `scored[0].score`; the empty path is the whole input. */
export const formatPath = (path: ReadonlyArray<PropertyKey>): string => {
  let out = ""
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`
    else if (typeof key === "string" && /^[A-Za-z_$][\w$]*$/.test(key)) out += out === "" ? key : `.${key}`
    else out += `[${JSON.stringify(String(key))}]`
  }
  return out === "" ? "(input)" : out
}

/**
 * One line per problem: `budget.targetTokens: targetTokens (20) must not exceed maxTokens (10)`.
 * Decode with `reportInput: true` so the lines can say what was found (`got "high"`).
 */
export const schemaProblems = (error: Schema.SchemaError): Array<string> =>
  formatter(error.issue).issues.map((issue) => {
    // Standard Schema paths may hold `{ key }` segments; ours are plain keys.
    const path = (issue.path ?? []).map((segment) =>
      typeof segment === "object" && segment !== null && "key" in segment ? segment.key : segment
    )
    return `${formatPath(path)}: ${issue.message}`
  })

/** What went wrong reading a path, without the stack of module names. */
export const describePlatformError = (error: PlatformError.PlatformError): string => {
  const reason = error.reason
  if (reason._tag === "BadArgument") return reason.description ?? reason.message
  switch (reason._tag) {
    case "NotFound":
      return "no such file or directory"
    case "PermissionDenied":
      return "permission denied"
    case "BadResource":
      return "not a readable file (is it a directory?)"
    default:
      return reason.description ?? reason.message
  }
}

/** A list of contents as it reads in a vector file: `["a", "b"]`. */
export const showList = (items: ReadonlyArray<string>): string => `[${items.map((s) => JSON.stringify(s)).join(", ")}]`

/**
 * As {@link schemaProblems}, for a value found at `prefix` in the vector: the problems' paths are
 * prefixed, so that a sub-table decoded on its own still names its field in full
 * (`config.scorers[1].weight`, not `weight`).
 */
export const schemaProblemsAt = (error: Schema.SchemaError, prefix: ReadonlyArray<PropertyKey>): Array<string> =>
  formatter(error.issue).issues.map((issue) => {
    const path = (issue.path ?? []).map((segment) =>
      typeof segment === "object" && segment !== null && "key" in segment ? segment.key : segment
    )
    return `${formatPath([...prefix, ...path])}: ${issue.message}`
  })

/** A multiset of contents, sorted, as a set comparison shows it: `{"a", "b"}`. */
export const showSet = (items: ReadonlyArray<string>): string =>
  `{${[...items].sort().map((s) => JSON.stringify(s)).join(", ")}}`
