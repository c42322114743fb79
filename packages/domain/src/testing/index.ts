import { Layer } from "effect"
import { DomainServices, Primitives } from "../layers.ts"
import { ModelCatalog } from "../model-catalog.ts"
import {
  ApiKeyRepositoryMemory,
  AuditLogMemory,
  EntitlementRepositoryMemory,
  EventOutboxMemory,
  WorkspaceRepositoryMemory
} from "./memory-repositories.ts"
import { MemoryStore, TransactorMemory } from "./memory-store.ts"

export * from "./memory-repositories.ts"
export * from "./memory-store.ts"

/** Every port in memory, sharing one `MemoryStore`. */
export const PortsMemory = Layer.mergeAll(
  WorkspaceRepositoryMemory,
  ApiKeyRepositoryMemory,
  EntitlementRepositoryMemory,
  AuditLogMemory,
  EventOutboxMemory,
  TransactorMemory
).pipe(Layer.provideMerge(MemoryStore.layer))

/** The whole domain with no I/O: services, memory ports, primitives and the built-in model catalog. */
export const DomainMemory = DomainServices.pipe(
  Layer.provideMerge(Layer.mergeAll(PortsMemory, Primitives(), ModelCatalog.layer))
)
