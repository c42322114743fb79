import { InvalidSignature, PurchaseOwnedElsewhere, StoreNotConfigured } from "@atrium/domain"
import { problem } from "./problem.ts"

/** The purchases area's errors as the contract's problems. */
export const PurchaseProblems = {
  /** 409 `purchase_owned_elsewhere`: the store's purchase is bound to another workspace and stays there. */
  OwnedElsewhere: problem(PurchaseOwnedElsewhere, { detail: () => "The purchase belongs to another workspace" }),
  /** 409 `store_not_configured`: this server does not sell through that store. */
  StoreNotConfigured: problem(StoreNotConfigured, { detail: (e) => `This server does not sell through ${e.store}` }),
  /** 401 `invalid_signature`: the signature, certificate chain, bundle or environment does not verify. */
  InvalidSignature: problem(InvalidSignature, { detail: () => "The signature, certificate chain, bundle or environment does not verify" })
} as const
