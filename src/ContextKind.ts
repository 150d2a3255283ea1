/**
 * ContextKind: an extensible, case-insensitive name for what an item is
 * (a message, a document, a tool's output…).
 *
 * Any non-blank string is a kind; the well-known ones are exported as constants. Kinds keep the
 * spelling they were given, and compare equal under ASCII case folding (`"message"` equals
 * `"Message"`), as the specification requires.
 *
 * @since 0.1.0
 */
import type { Equivalence as Eq } from "effect"
import * as Name from "./internal/caseInsensitiveName.ts"

/**
 * A ContextKind: any non-blank string.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ContextKind = Name.nameSchema("ContextKind").annotate({ identifier: "ContextKind" })

/**
 * @since 0.1.0
 * @category models
 */
export type ContextKind = typeof ContextKind.Type

/** @since 0.1.0 @category constants */
export const Message: ContextKind = "Message"
/** @since 0.1.0 @category constants */
export const Document: ContextKind = "Document"
/** @since 0.1.0 @category constants */
export const ToolOutput: ContextKind = "ToolOutput"
/** @since 0.1.0 @category constants */
export const Memory: ContextKind = "Memory"
/** @since 0.1.0 @category constants */
export const SystemPrompt: ContextKind = "SystemPrompt"

/**
 * The kind an item has when none is given.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultKind: ContextKind = Message

/**
 * Kinds are equal when they match under ASCII case folding.
 *
 * @since 0.1.0
 * @category equivalence
 */
export const Equivalence: Eq.Equivalence<ContextKind> = Name.equivalence

/**
 * The case-folded form of a kind, for use as a map key.
 *
 * @since 0.1.0
 * @category utils
 */
export const fold: (kind: ContextKind) => string = Name.foldAscii
