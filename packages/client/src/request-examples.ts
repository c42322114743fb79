/**
 * A valid example body for each request schema of the contract, by its component name (or, for a body schema without
 * one, by its operation id): the documents show them (so docs and generated samples send requests that pass
 * validation), and a test decodes each through its endpoint. A new request body needs its example here.
 */
export const requestExamples: Readonly<Record<string, unknown>> = {
  AiTaskRequest: { model: "atrium-local-1", input: { prompt: "Summarise this support ticket in two sentences." }, maxOutputTokens: 256, metadata: { ticket: "T-1042" } },
  CreateWebhookEndpoint: { url: "https://hooks.example.com/atrium", description: "Billing sync", eventTypes: ["ai_task.succeeded", "ai_task.failed"] },
  UpdateWebhookEndpoint: { description: "Billing sync (EU)", enabled: true },
  RotateWebhookSecret: { gracePeriodSeconds: 86400 },
  TestWebhookEndpoint: { eventType: "feature_request.status_changed" },
  RecoverWebhookDeliveries: { since: "2026-01-01T00:00:00Z" },
  SignUpRequest: { email: "ada@example.com", password: "correct horse battery staple", name: "Ada Lovelace" },
  SignInRequest: { email: "ada@example.com", password: "correct horse battery staple" },
  RefreshRequest: { refreshToken: "rt_3q2Xo5bYkP9sV1dWmN7cE4fG8hJ6kL0a" },
  SwitchWorkspace: { workspaceId: "ws_01hx3m5q8r2t4v6w8y0z1b3c5d" },
  AcceptInvitation: { token: "it_7d2Fq9LpX4sB1nV6mC3kJ8hG5tR0wYzA" },
  AppearanceBundle: { theme: "dark", accentColor: "#3366ff", textScalePercent: 110, reducedMotion: false, density: "comfortable", extras: {} },
  ChangeMemberRole: { role: "admin" },
  CreateInvitation: { email: "grace@example.com", role: "member" },
  CreateApiKey: { name: "Billing sync", scopes: ["read", "webhooks:write"], environment: "live" },
  RollApiKey: { graceSeconds: 3600 },
  CreateDomain: { hostname: "app.example.com" },
  CreateSchedule: {
    name: "Weekly summary",
    cron: "0 9 * * 1",
    timezone: "Europe/Berlin",
    task: { model: "atrium-local-1", input: { prompt: "Summarise last week's support tickets." }, maxOutputTokens: 256 },
    catchUp: "latest",
    overlap: "skip"
  },
  UpdateSchedule: { cron: "0 8 * * 1-5", enabled: true },
  VerifyEmailRequest: { token: "ev_5Jq2Lx8Rb3Nc7Vd1Kf9Hg4Tm6Ws0Pz2A" },
  PasswordResetRequest: { email: "ada@example.com" },
  PasswordResetConfirmRequest: { token: "pr_8Hn3Vc6Xq1Zb4Lm7Tk2Rd9Fs5Wg0Yj3E", password: "a new long passphrase" },
  PurchaseSync: { store: "play_store", purchaseToken: "opaque-token-from-google-play-billing", productId: "credits_1000" },
  CreateFeatureRequest: { title: "Dark mode for the console", details: "The console is hard to read at night." },
  NotificationPreferences: { ai_tasks: true, invitations: true, feature_requests: false, billing: true, schedules: true },
  "storeNotifications.apple": { signedPayload: "eyJhbGciOiJFUzI1NiIsIng1YyI6WyJNSUkuLi4iXX0.eyJub3RpZmljYXRpb25UeXBlIjoiRElEX1JFTkVXIn0.c2lnbmF0dXJl" },
  "storeNotifications.google": {
    message: { data: "eyJzdWJzY3JpcHRpb25Ob3RpZmljYXRpb24iOnt9fQ==", messageId: "1234567890", publishTime: "2026-01-31T12:00:00Z" },
    subscription: "projects/example/subscriptions/play-rtdn"
  },
  "mobilePush.putPushDevice": { expoPushToken: "ExponentPushToken[xxxxxxxxxxxxxxxxxxxxxx]", platform: "ios", appVersion: "1.4.2", locale: "en-GB" }
}
