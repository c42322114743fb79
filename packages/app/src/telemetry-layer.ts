import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Layer, Option } from "effect"
import { Otlp } from "effect/observability"
import type { AppConfig } from "./app-config.ts"

/**
 * OTLP/HTTP (JSON) traces, metrics and logs to `OTEL_EXPORTER_OTLP_ENDPOINT` when it is set; nothing otherwise. Logs
 * still go to stdout as well. Spans carry no credential: requests are traced by route, never by header.
 */
export const telemetryLayer = (config: AppConfig) =>
  Option.match(config.otlp, {
    onNone: () => Layer.empty,
    onSome: ({ baseUrl, serviceName }) =>
      Otlp.layerJson({
        baseUrl,
        resource: { serviceName, serviceVersion: "0.1.0" },
        loggerMergeWithExisting: true,
        tracerExportInterval: "1 second",
        metricsExportInterval: "10 seconds"
      }).pipe(Layer.provide(NodeHttpClient.layerUndici))
  })
