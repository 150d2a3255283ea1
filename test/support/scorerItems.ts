/**
 * A builder for scorer unit tests: an item with only the fields a test cares about.
 */
import { ContextItem } from "../../src/ContextItem.ts"
import * as Timestamp from "../../src/Timestamp.ts"

export interface Fields {
  readonly kind?: string
  readonly tags?: ReadonlyArray<string>
  readonly priority?: number
  /** RFC 3339, parsed with Date.parse. */
  readonly timestamp?: string
  readonly hint?: number
  readonly metadata?: Record<string, unknown>
}

export const scorerItem = (content: string, fields: Fields = {}): ContextItem =>
  new ContextItem({
    content,
    tokens: 10,
    ...(fields.kind === undefined ? {} : { kind: fields.kind }),
    ...(fields.tags === undefined ? {} : { tags: [...fields.tags] }),
    ...(fields.metadata === undefined ? {} : { metadata: fields.metadata }),
    ...(fields.priority === undefined ? {} : { priority: fields.priority }),
    ...(fields.hint === undefined ? {} : { futureRelevanceHint: fields.hint }),
    ...(fields.timestamp === undefined ? {} : { timestamp: Timestamp.fromEpochMillis(Date.parse(fields.timestamp)) })
  })
