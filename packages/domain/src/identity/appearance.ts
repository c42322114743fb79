import { DateTime, Option, Schema } from "effect"
import { isSafeTextValue, SafeText, UserId, WorkspaceId } from "../shared/index.ts"

/** Value of an `extras` entry: a JSON scalar (strings up to 256 characters, finite numbers, booleans). */
export const AppearanceExtraValue = Schema.Union([
  SafeText.check(Schema.isMaxLength(256)),
  Schema.Finite,
  Schema.Boolean
])

/** Client-defined settings the server keeps without interpreting: at most 32 keys of 1–64 characters. */
export const AppearanceExtras = Schema.Record(Schema.String, AppearanceExtraValue)
  .check(
    Schema.isMaxProperties(32),
    // Checked on the record itself: a check on the key schema alone is not applied to keys on decoding.
    Schema.makeFilter((extras: object) => Object.keys(extras).every((key) => key.length >= 1 && key.length <= 64 && isSafeTextValue(key)) ||
        "keys must be 1–64 characters of text without control characters")
  )
  .annotate({ description: "Open map of client settings: ≤ 32 keys (1–64 chars), values string (≤ 256 chars), number or boolean" })

/** A member's appearance settings for one workspace. */
export const AppearanceBundle = Schema.Struct({
  theme: Schema.Literals(["light", "dark", "system"]),
  accentColor: Schema.String.check(Schema.isPattern(/^#[0-9a-fA-F]{6}$/)).annotate({ description: "#rrggbb", examples: ["#3366ff"] }),
  textScalePercent: Schema.Int.check(Schema.isBetween({ minimum: 75, maximum: 200 })).annotate({ description: "Text scale in percent, 75–200" }),
  reducedMotion: Schema.Boolean,
  density: Schema.Literals(["compact", "comfortable", "spacious"]),
  extras: AppearanceExtras
}).annotate({ identifier: "AppearanceBundle" })
export type AppearanceBundle = typeof AppearanceBundle.Type

/** What a member sees before saving anything. */
export const defaultAppearance: AppearanceBundle = {
  theme: "system",
  accentColor: "#3366ff",
  textScalePercent: 100,
  reducedMotion: false,
  density: "comfortable",
  extras: {}
}

/** A stored bundle and its version; version 0 is the default nobody saved yet. */
export class AppearanceSettings extends Schema.Class<AppearanceSettings>("@atrium/domain/AppearanceSettings")({
  workspaceId: WorkspaceId,
  userId: UserId,
  bundle: AppearanceBundle,
  version: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)),
  updatedAt: Schema.OptionFromNullOr(Schema.DateTimeUtc)
}) {
  /** The unsaved default of a member. */
  static initial(workspaceId: WorkspaceId, userId: UserId): AppearanceSettings {
    return new AppearanceSettings({ workspaceId, userId, bundle: defaultAppearance, version: 0, updatedAt: Option.none() })
  }
}

/** The strong ETag of a version: `"v3"`. */
export const appearanceEtag = (version: number): string => `"v${version}"`

/** The version an `If-Match` value names (`"v3"`, also `W/"v3"`); none for anything else, which never matches. */
export const parseAppearanceEtag = (header: string): Option.Option<number> => {
  const match = /^(?:W\/)?"v(\d{1,9})"$/.exec(header.trim())
  return match === null || match[1] === undefined ? Option.none() : Option.some(Number(match[1]))
}

/** The next version of `current`, holding `bundle`, saved at `now`. */
export const stampAppearance = (current: AppearanceSettings, bundle: AppearanceBundle, now: DateTime.Utc): AppearanceSettings =>
  new AppearanceSettings({ ...current, bundle, version: current.version + 1, updatedAt: Option.some(now) })
