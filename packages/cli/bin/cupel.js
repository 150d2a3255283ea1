#!/usr/bin/env node
// The `cupel` command of the package effect-cupel-cli. The commands themselves are the library's
// (effect-cupel/cli/Main, written against effect's platform-agnostic FileSystem, Path and Stdio);
// this package only adds what a library user never needs: the Node implementations of those
// services (@effect/platform-node, with undici, ws and redis), and a runtime for the process.
//
// Plain JavaScript because Node never strips types from files under node_modules.

// @effect/platform-node (and its undici) need Node 22.19: say so in one line rather than let an
// older Node fail on some import deep inside them.
const [major = 0, minor = 0] = process.versions.node.split(".").map(Number)
if (major < 22 || (major === 22 && minor < 19)) {
  process.stderr.write(`cupel: needs Node 22.19 or later; this is Node ${process.versions.node}.\n`)
  process.exitCode = 1
} else {
  // The two sub-modules the command needs, not the package root, which would also load undici,
  // redis and ws (NodeHttpClient, NodeRedis, NodeWS) and triple the start-up time.
  const [NodeRuntime, NodeServices, { Effect }, Main] = await Promise.all([
    import("@effect/platform-node/NodeRuntime"),
    import("@effect/platform-node/NodeServices"),
    import("effect"),
    import("effect-cupel/cli/Main")
  ])
  Main.run.pipe(Effect.provide(NodeServices.layer), NodeRuntime.runMain)
}
