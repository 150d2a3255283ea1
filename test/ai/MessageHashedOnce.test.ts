/**
 * A message is hashed once (docs/design.md item 148): its hash — its role and rendered text —
 * is made at its first use and read by every part of every later call: the prefix digests
 * (rule S3), the request sent (`SentRequest`) and the cache-miss descriptors (M1–M4). Before,
 * each part hashed every new message with a memo of its own: three times a message.
 *
 * `Hash.hashString` is wrapped to record what it hashes; generated sessions are replayed through
 * the stable windows of the effect/ai layer, the AI SDK middleware and `prepareStep`, and no message text (a
 * role, a newline, its rendered text) may be hashed more times than messages of the session
 * read so (a short "ok" may stand twice: two messages, two hashes).
 */
import { assert, describe, it } from "@effect/vitest"
import { vi } from "vitest"
import * as PromptWindow from "../../src/ai/PromptWindow.ts"
import { type DoorName, doors, type Settings } from "../support/doors.ts"
import { chatProjection } from "../support/sessionFormats.ts"
import { generate, historyAt } from "../support/sessions.ts"

// Hoisted with the mock, which reads it.
const { hashed } = vi.hoisted(() => ({ hashed: new Array<string>() }))

vi.mock("../../src/ai/internal/hash.ts", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../src/ai/internal/hash.ts")>()
  return {
    ...original,
    hashString: (text: string, seed?: number) => {
      hashed.push(text)
      return original.hashString(text, seed)
    }
  }
})

// The stable windows: a per-call window hashes no message (it keeps no history to check, and
// predicts no cache).
const cases: ReadonlyArray<readonly [DoorName, Settings["mode"]]> = [
  ["layer", "stable"],
  ["middleware", "stable"],
  ["prepareStep", "stable"]
]

describe("a message is hashed once (design item 148)", () => {
  for (const [door, mode] of cases) {
    it(`${door} (${mode}): no message's text hashed twice over a replay`, async () => {
      for (const seed of [148, 1148]) {
        const session = chatProjection(generate("tool-heavy", 40, seed))
        const texts = historyAt(session, session.steps.length).map((m) => `${m.role}\n${PromptWindow.render(m)}`)
        const messagesReading = new Map<string, number>()
        for (const text of texts) messagesReading.set(text, (messagesReading.get(text) ?? 0) + 1)
        hashed.length = 0
        await doors[door](session, { contextWindow: 6_000, outputReserve: 500, mode })
        const times = new Map<string, number>()
        for (const text of hashed) if (messagesReading.has(text)) times.set(text, (times.get(text) ?? 0) + 1)
        assert.isAbove(times.size, 30, `seed ${seed}: few messages were hashed`)
        const again = [...times].filter(([text, n]) => n > messagesReading.get(text)!)
        assert.strictEqual(
          again.length,
          0,
          `seed ${seed}: ${again.length} of ${times.size} texts hashed more often than messages read so (${again.slice(0, 3).map(([t, n]) => `${n}× ${JSON.stringify(t.slice(0, 40))}`).join(", ")})`
        )
      }
    })
  }
})
