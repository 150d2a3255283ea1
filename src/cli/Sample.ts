/**
 * Sample: the embedded inputs of `cupel demo`.
 *
 * An on-call assistant helping an engineer through a slow checkout service: a pinned system
 * prompt, a dozen conversation turns written from three time zones (the offsets differ, the
 * instants interleave), retrieved documents and one oversized tool output. Token counts use a
 * rough tokenizer: one token per four characters.
 *
 * Two forms of it:
 *
 * - {@link pipeline} — raw candidates for the whole pipeline, in the JSON form `cupel run`
 *   reads (`cupel demo --print-sample` prints it): no scores, the scorer computes them; one
 *   retrieved document comes back twice, an image attachment costs no tokens, and an incident
 *   timeline would fit the target but not beside the pinned prompt.
 * - {@link json} — the Place stage's input, in the JSON form `cupel place` reads
 *   (`cupel demo --place --print-sample`): the same conversation with scores already given,
 *   the scored list in slicer order (score descending), the order Truncate keeps from.
 *
 * @since 0.1.0
 */
import type { PipelineInputJson } from "./PipelineInput.ts"
import type { PlaceInputJson } from "./PlaceInput.ts"

const tokens = (content: string): number => Math.ceil(content.length / 4)

type Item = PlaceInputJson["scored"] extends ReadonlyArray<infer S> | undefined ? S : never

const scored = (
  score: number,
  kind: string,
  source: string,
  content: string,
  timestamp?: string
): Item => ({
  item: timestamp === undefined
    ? { content, tokens: tokens(content), kind, source }
    : { content, tokens: tokens(content), kind, source, timestamp },
  score
})

const user = (timestamp: string, score: number, text: string) => scored(score, "Message", "Chat", `user: ${text}`, timestamp)
const atlas = (timestamp: string, score: number, text: string) =>
  scored(score, "Message", "Chat", `assistant: ${text}`, timestamp)
const dana = (timestamp: string, score: number, text: string) =>
  scored(score, "Message", "Chat", `dana (SRE, New York): ${text}`, timestamp)

const systemPrompt = "You are Atlas, the on-call assistant for the Checkout team. Answer from the runbooks, " +
  "postmortems and the conversation below, and name the document you relied on. Prefer the smallest safe " +
  "change. Never suggest a command that deletes data or restarts a database without asking for explicit " +
  "confirmation first. If the evidence is thin, say so and say what to look at next."

const runbook = "Runbook: checkout-db connection pool exhaustion. Symptoms: p99 latency of checkout rises " +
  "by an order of magnitude while CPU stays flat; the pool gauge sits at its maximum (50 per pod) and " +
  "the waiters gauge climbs; logs show acquire_timeout_ms errors. Usual causes: a slow dependency called " +
  "while a transaction is open, a missing index on a hot query, or a leak after an error path. First " +
  "response: find the release that changed query paths or transaction scope; if one did, roll it back " +
  "(see the deploy guide) before tuning anything. Do not raise the pool size: the database allows 600 " +
  "connections in total and 12 pods already hold 600. After recovery, add a pool-saturation alert at 80% " +
  "for 5 minutes and open a postmortem."

const postmortem = "Postmortem 2024-02-11, checkout outage (47 minutes). A change wrapped the call to the " +
  "address-validation service in the order transaction. When that service slowed to 1.5 s, every checkout " +
  "held a database connection for the whole call; the pool ran dry at about 30 checkouts per second per " +
  "pod and requests queued until they timed out. Rolling back restored service in 4 minutes. Action items: " +
  "never call a remote service inside a database transaction; put remote calls before the transaction or " +
  "after commit behind an outbox; alert on pool waiters."

const deployGuide = "Deploy guide: rolling back a service. Run argo rollouts undo checkout to return to the " +
  "previous ReplicaSet; it honours the canary steps unless you pass --skip-steps. A rollback is safe when the " +
  "release carried no schema migration; check the release notes or the migrations folder of the tag. Orders " +
  "written by the new version remain valid for the old one as long as no column was added."

const logLines = Array.from({ length: 120 }, (_, i) => {
  const second = String(i % 60).padStart(2, "0")
  const minute = String(10 + Math.floor(i / 60)).padStart(2, "0")
  return `2024-06-03T09:${minute}:${second}Z WARN checkout-7f9c4d-${i % 12} db.pool=checkout-db ` +
    `active=50/50 waiters=${20 + (i * 7) % 31} acquire_timeout_ms=2000 order=ord_${(48213 + i * 37).toString(36)}`
})
const toolOutput = `$ kubectl logs deploy/checkout --since=30m | grep -i pool\n${logLines.join("\n")}`

/**
 * The Place-stage sample in `cupel place` JSON form (`cupel demo --place`).
 *
 * @since 0.1.0
 * @category samples
 */
export const json: PlaceInputJson = {
  budget: { maxTokens: 4096, targetTokens: 700 },
  pinned: [{ content: systemPrompt, tokens: tokens(systemPrompt), kind: "SystemPrompt", source: "Chat" }],
  scored: [
    user("2024-06-03T11:24:00+02:00", 0.97, "Can we roll back without losing the orders placed since the deploy?"),
    atlas(
      "2024-06-03T09:25:00Z",
      0.93,
      "Yes. v2.14.0 has no schema migration, so rolling back is safe and the orders written since stay valid."
    ),
    scored(0.91, "Document", "Rag", runbook),
    atlas(
      "2024-06-03T09:16:00Z",
      0.88,
      "Holding a transaction open across a network call keeps connections checked out. That is the likely cause."
    ),
    user("2024-06-03T11:15:00+02:00", 0.85, "v2.14.0 added a fraud check that calls the risk service inside the DB transaction."),
    scored(0.8, "ToolOutput", "Tool", toolOutput, "2024-06-03T09:22:00Z"),
    atlas(
      "2024-06-03T09:21:00Z",
      0.74,
      "Then each checkout holds a connection for about 2 s; 50 connections cap a pod near 25 checkouts per second."
    ),
    scored(0.68, "Document", "Rag", postmortem),
    dana("2024-06-03T05:10:00-04:00", 0.61, "Pool is pinned at 50/50 on every pod and the waiters keep climbing."),
    user(
      "2024-06-03T10:58:00+02:00",
      0.58,
      "Checkout p99 jumped from 180 ms to 2.4 s after this morning's deploy. Where do I start?"
    ),
    dana("2024-06-03T05:20:00-04:00", 0.52, "Risk service p99 is 1.9 s today; they are in the middle of a migration."),
    scored(0.47, "Document", "Rag", deployGuide),
    atlas("2024-06-03T09:11:00Z", 0.44, "That matches the pool-exhaustion runbook. Did v2.14.0 change any query paths?"),
    atlas(
      "2024-06-03T09:04:00Z",
      0.39,
      "It only slows down under full load, so look at connection pool saturation on checkout-db and at timeouts."
    ),
    user("2024-06-03T11:03:00+02:00", 0.33, "v2.14.0. The canary passed at 5%; the slowdown started when we went to 100%."),
    atlas("2024-06-03T08:59:00Z", 0.21, "Start with the deploy diff. Which version went out, and did the canary pass?")
  ]
}

type Candidate = PipelineInputJson["items"][number]

const message = (timestamp: string, content: string): Candidate => ({
  content,
  tokens: tokens(content),
  kind: "Message",
  source: "Chat",
  timestamp
})

const document = (priority: number, content: string, source = "Rag"): Candidate => ({
  content,
  tokens: tokens(content),
  kind: "Document",
  source,
  priority
})

// A minute-by-minute timeline: long enough to fit the target (700) on its own, too long beside
// the 93-token pinned prompt, so the pinned prompt displaces it.
const timelineLines = Array.from({ length: 58 }, (_, i) => {
  const minute = 40 + i
  const clock = `${String(8 + Math.floor(minute / 60)).padStart(2, "0")}:${String(minute % 60).padStart(2, "0")}`
  const load = Math.min(50, 12 + i * 2)
  return `${clock} p99 ${i < 20 ? 180 + i * 3 : 900 + (i - 20) * 70} ms, pool ${load}/50, waiters ${Math.max(0, (i - 18) * 3)}`
})
const timeline = "Incident timeline INC-2291, checkout (UTC, one line a minute from the incident bot): " +
  timelineLines.join("; ")

/**
 * The pipeline sample in `cupel run` JSON form: 20 raw candidates and the demo's configuration —
 * a composite of recency (0.5), priority (0.3) and kind (0.2), deduplication, the greedy slicer
 * and the u-shaped placer, overflow `throw`.
 *
 * @since 0.2.0
 * @category samples
 */
export const pipeline: PipelineInputJson = {
  budget: { maxTokens: 4096, targetTokens: 700 },
  items: [
    { content: systemPrompt, tokens: tokens(systemPrompt), kind: "SystemPrompt", source: "Chat", pinned: true },
    message("2024-06-03T08:59:00Z", "assistant: Start with the deploy diff. Which version went out, and did the canary pass?"),
    message("2024-06-03T10:58:00+02:00", "user: Checkout p99 jumped from 180 ms to 2.4 s after this morning's deploy. Where do I start?"),
    message("2024-06-03T11:03:00+02:00", "user: v2.14.0. The canary passed at 5%; the slowdown started when we went to 100%."),
    message(
      "2024-06-03T09:04:00Z",
      "assistant: It only slows down under full load, so look at connection pool saturation on checkout-db and at timeouts."
    ),
    message("2024-06-03T05:10:00-04:00", "dana (SRE, New York): Pool is pinned at 50/50 on every pod and the waiters keep climbing."),
    message("2024-06-03T09:11:00Z", "assistant: That matches the pool-exhaustion runbook. Did v2.14.0 change any query paths?"),
    message(
      "2024-06-03T11:15:00+02:00",
      "user: v2.14.0 added a fraud check that calls the risk service inside the DB transaction."
    ),
    message(
      "2024-06-03T09:16:00Z",
      "assistant: Holding a transaction open across a network call keeps connections checked out. That is the likely cause."
    ),
    message("2024-06-03T05:20:00-04:00", "dana (SRE, New York): Risk service p99 is 1.9 s today; they are in the middle of a migration."),
    message(
      "2024-06-03T09:21:00Z",
      "assistant: Then each checkout holds a connection for about 2 s; 50 connections cap a pod near 25 checkouts per second."
    ),
    {
      content: toolOutput,
      tokens: tokens(toolOutput),
      kind: "ToolOutput",
      source: "Tool",
      timestamp: "2024-06-03T09:22:00Z",
      priority: 6
    },
    message("2024-06-03T11:24:00+02:00", "user: Can we roll back without losing the orders placed since the deploy?"),
    message(
      "2024-06-03T09:25:00Z",
      "assistant: Yes. v2.14.0 has no schema migration, so rolling back is safe and the orders written since stay valid."
    ),
    document(9, runbook),
    document(7, postmortem),
    document(5, deployGuide),
    document(8, timeline),
    // The same runbook again, from the keyword index: byte-identical, so only the better scored
    // copy (the vector hit, priority 9) survives deduplication.
    document(4, runbook, "Search"),
    {
      content: "[image] checkout p99 latency, last 6 hours (attached as an image; its tokens are billed by the vision encoder)",
      tokens: 0,
      kind: "Image",
      source: "Chat",
      timestamp: "2024-06-03T09:23:00Z"
    }
  ],
  scorer: {
    type: "composite",
    scorers: [
      { type: "recency", weight: 0.5 },
      { type: "priority", weight: 0.3 },
      { type: "kind", weight: 0.2 }
    ]
  },
  slicer: "greedy",
  placer: "u-shaped",
  deduplication: true,
  overflowStrategy: "throw"
}
