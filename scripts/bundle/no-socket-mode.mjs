// What the bundle loads for `@slack/socket-mode` (scripts/build.ts). Bolt loads it for its
// SocketModeReceiver, which the app never makes: Slack's requests come over HTTP to the
// ExpressReceiver. The real one loads all of undici's index (about 3 MB of heap).
export class SocketModeClient {
  constructor() {
    throw new Error("Socket Mode is not part of Insight Relay: Slack's requests come over HTTP");
  }
}
