import { Inspector, type InspectorStore } from "@agent-kernel/inspector"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Layer from "effect/Layer"
import type * as Redacted from "effect/Redacted"
import { createServer } from "node:http"

// Your own routes, and the inspector's under /inspector: one router, one server.
export const server = (
  store: Layer.Layer<InspectorStore.InspectorStore>,
  token: Redacted.Redacted<string>,
  port: number
) =>
  HttpRouter.serve(
    Layer.mergeAll(
      HttpRouter.add("GET", "/health", HttpServerResponse.text("ok")),
      Inspector.layer({ token, prefix: "/inspector" })
    )
  ).pipe(Layer.provide(store), Layer.provideMerge(NodeHttpServer.layer(createServer, { host: "127.0.0.1", port })))
