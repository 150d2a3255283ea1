#!/usr/bin/env node
/**
 * The `cupel` command-line program: `cupel demo`, `cupel run`, `cupel place`, `cupel conformance`.
 *
 * Run with a Node that strips types (`npm start`, `npx cupel`, `node src/bin/cupel.ts` with the
 * Node 22 that `npm install` provides), or build and run `dist/bin/cupel.js`.
 *
 * @since 0.1.0
 */
// The sub-modules, not the package root: the root loads every Node module of the package, the
// HTTP client's undici, NodeRedis and NodeWS among them, which triples `cupel --version`'s time.
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Effect } from "effect"
import * as Main from "../cli/Main.ts"

Main.run.pipe(Effect.provide(NodeServices.layer), NodeRuntime.runMain)
