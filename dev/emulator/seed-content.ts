/*
 * The text of the seed data: communities, chat groups, members and thread templates that read
 * like real community chat. `seed.ts` turns these into threads and messages deterministically.
 * Placeholders in braces ({v}, {n}, {place}, ...) are filled from the group's `slots`.
 */
import { objectId } from "./random.js";
import type { EmulatedAuthor, Platform, QuestionResponseStatus, Sentiment } from "./types.js";

/** The fixed ids of the seed data, so tests and the demo can name them. */
export const SEED = {
  communities: {
    /** Lumen DB, an open-source project; the only community `limitedKey` may read. */
    primary: objectId("community", 1),
    /** Riverside Cycling Club (WhatsApp groups). */
    secondary: objectId("community", 2),
    /** Pocketbook, a product's beta-testing community. */
    restricted: objectId("community", 3),
  },
  groups: {
    /** Lumen DB Support (Telegram), in `primary`. */
    support: objectId("group", 1),
    /** Lumen DB Contributors (Telegram), in `primary`. */
    contributors: objectId("group", 2),
    /** A direct-message group (isDirectMessageGroup true), in `primary`. */
    dm: objectId("group", 3),
    /** Saturday Rides (WhatsApp), in `secondary`. */
    rides: objectId("group", 4),
    /** Bike Workshop & Gear (WhatsApp), in `secondary`. */
    workshop: objectId("group", 5),
    /** Pocketbook Beta Testers (Telegram), in `restricted`. */
    beta: objectId("group", 6),
    /** Pocketbook Android Beta (Telegram), in `restricted`. */
    android: objectId("group", 7),
  },
  threads: {
    /** A support thread whose title and summary carry Slack control sequences (untrusted text). */
    injection: objectId("thread", 0xfff001),
  },
} as const;

export interface CommunityContent {
  id: string;
  name: string;
  description: string;
  createdDaysAgo: number;
  members: EmulatedAuthor[];
  bot: EmulatedAuthor;
  botLines: string[];
}

export interface ThreadTemplate {
  title: string;
  summary: string;
  keywords: string[];
  sentiment: Sentiment;
  question: boolean;
  status: QuestionResponseStatus;
  opener: string;
  replies: string[];
}

export interface GroupContent {
  id: string;
  community: string;
  name: string;
  description: string;
  isDirectMessageGroup: boolean;
  platform: Platform;
  memberCount: number;
  createdDaysAgo: number;
  threadCount: number;
  /** For direct-message groups: the only two members who write. */
  dmMembers?: [number, number];
  slots: Record<string, readonly string[]>;
  templates: ThreadTemplate[];
}

let memberSeq = 0;
const member = (fullName: string, handle: string): EmulatedAuthor => ({
  id: objectId("member", ++memberSeq),
  handle,
  fullName,
});

export const COMMUNITIES: CommunityContent[] = [
  {
    id: SEED.communities.primary,
    name: "Lumen DB",
    description: "Open-source embedded time-series database: users, contributors and maintainers.",
    createdDaysAgo: 900,
    members: [
      member("Maya Chen", "mayachen"),
      member("Jonas Berg", "jberg"),
      member("Priya Nair", "priya_n"),
      member("Tomás Alvarez", "tomasalv"),
      member("Aiko Tanaka", "aiko_t"),
      member("Sam Okafor", "samokafor"),
      member("Lena Fischer", "lenafi"),
      member("Dev Patel", "devp"),
    ],
    bot: member("Lumen Bot", "lumen_bot"),
    botLines: [
      "Reminder: please search the docs and GitHub issues before asking. /docs <term> searches the manual.",
      "✅ CI passed on main (build #{n}, 14 checks).",
      "New release {v} is out: changelog at https://lumen-db.example/releases/{v}",
    ],
  },
  {
    id: SEED.communities.secondary,
    name: "Riverside Cycling Club",
    description: "Weekend rides, commuting and bike maintenance for the Riverside area.",
    createdDaysAgo: 1400,
    members: [
      member("Hannah Moore", "hannah.rides"),
      member("Marco Rossi", "marco_r"),
      member("Ines Costa", "inesc"),
      member("Olu Adeyemi", "olu_a"),
      member("Kasia Nowak", "kasia"),
      member("Ben Carter", "bencarter"),
      member("Yuki Sato", "yukis"),
    ],
    bot: member("RideBot", "ridebot"),
    botLines: [
      "Weather for Saturday at {place}: 14°C, wind 12 km/h W, 10% chance of rain.",
      "Reminder: lights on after 17:00 and helmets on every club ride.",
    ],
  },
  {
    id: SEED.communities.restricted,
    name: "Pocketbook",
    description: "Beta testers of the Pocketbook budgeting app (iOS and Android).",
    createdDaysAgo: 300,
    members: [
      member("Grace Liu", "grace_pb"),
      member("Noah Williams", "noahw"),
      member("Fatima Zahra", "fzahra"),
      member("Lukas Weber", "lukasw"),
      member("Chloé Martin", "chloem"),
      member("Raj Mehta", "rajm"),
      member("Elena Petrova", "elenap"),
    ],
    bot: member("Pocketbook Builds", "pb_builds"),
    botLines: [
      "Build {build} is available on TestFlight and the Play Store beta track.",
      "Known issue in {build}: charts may render blank on first launch. Fix is in review.",
    ],
  },
];

const lumenSlots = {
  v: ["0.13.4", "0.14.0", "0.14.1", "0.14.2", "0.15.0-rc.1"],
  n: ["1182", "1207", "1219", "1234", "1251", "1266"],
  writers: ["16", "32", "64", "128"],
};
const rideSlots = {
  place: ["Millbrook", "Hawthorn Hill", "the reservoir", "Castle Point", "Elm Valley"],
  dist: ["60", "75", "90", "110"],
  day: ["Thursday", "Friday", "Sunday"],
};
const pocketSlots = {
  build: ["2.4.0 (311)", "2.4.1 (318)", "2.5.0 (326)", "2.5.1 (330)"],
  bank: ["Northwind Bank", "Monzo", "ING", "Revolut"],
  device: ["7", "8 Pro", "6a"],
};

export const GROUPS: GroupContent[] = [
  {
    id: SEED.groups.support,
    community: SEED.communities.primary,
    name: "Lumen DB Support",
    description: "Questions and help with running Lumen DB. Be kind, share versions and logs.",
    isDirectMessageGroup: false,
    platform: "telegram",
    memberCount: 1843,
    createdDaysAgo: 880,
    // 59 generated plus the injection thread: 60.
    threadCount: 59,
    slots: lumenSlots,
    templates: [
      {
        title: "Crash on startup after upgrading to {v}",
        summary:
          "A user reports that Lumen {v} panics on startup with a WAL checksum error after upgrading. A maintainer traced it to a stale lock file from the previous version; deleting it fixed the problem.",
        keywords: ["upgrade", "WAL", "crash", "lock file"],
        sentiment: "mixed",
        question: true,
        status: "answered",
        opener:
          "Hi all, after upgrading to {v} the server panics on startup: `wal checksum mismatch at segment 42`. Anyone seen this?",
        replies: [
          "Do you have a `lumen.lock` left over in the data dir? {v} changed the lock format.",
          "Yes, there is one from the old version.",
          "Delete it and start again, the WAL itself is fine.",
          "That worked, thanks! Might be worth a line in the upgrade guide.",
        ],
      },
      {
        title: "How to configure retention per measurement?",
        summary:
          "Someone asked whether retention can be set per measurement rather than globally. The answer: yes, with the `retention` option on the measurement, available since 0.12.",
        keywords: ["retention", "measurement", "configuration"],
        sentiment: "neutral",
        question: true,
        status: "answered",
        opener:
          "Is there a way to set retention per measurement instead of globally? We keep metrics for 30 days but logs only 7.",
        replies: [
          "Yes, since 0.12 you can set `retention` in the measurement options.",
          "`CREATE MEASUREMENT logs WITH retention = '7d'` should do it.",
          "Perfect, found it in the docs now 🙏",
        ],
      },
      {
        title: "Query latency spikes with {writers} concurrent writers",
        summary:
          "A user sees p99 query latency jump to several seconds when {writers} writers run at once. Maintainers suspect contention with compaction and asked for a CPU profile; no fix yet.",
        keywords: ["performance", "latency", "compaction", "concurrency"],
        sentiment: "negative",
        question: true,
        status: "pending",
        opener:
          "We run {writers} writers and p99 read latency goes from 20 ms to 3-4 s every few minutes. Is that expected?",
        replies: [
          "Not expected. Does it line up with compaction runs? Check `lumen_compaction_active` in the metrics.",
          "Looks like it, yes, the spikes match compactions.",
          "Can you capture a CPU profile during a spike (`lumenctl profile --seconds 30`) and attach it here?",
        ],
      },
      {
        title: "Docker image fails to start on ARM64",
        summary:
          "A user reports that the official Docker image exits immediately on an ARM64 host with an 'exec format error'. Nobody has answered yet.",
        keywords: ["docker", "arm64", "install"],
        sentiment: "negative",
        question: true,
        status: "unanswered",
        opener:
          "The `lumendb/lumen:{v}` image exits right away on my Raspberry Pi 5 with `exec format error`. Is there an ARM64 build?",
        replies: [],
      },
      {
        title: "Thanks for the {v} release!",
        summary:
          "A user thanked the team for {v}: compaction is much faster and memory use dropped. Others reported similar gains.",
        keywords: ["release", "compaction", "memory"],
        sentiment: "positive",
        question: false,
        status: "answered",
        opener: "Just upgraded our cluster to {v}, compaction is so much faster. Great work everyone! 🎉",
        replies: [
          "Glad to hear it, thanks for the feedback!",
          "Same here, memory use dropped by about a third.",
        ],
      },
      {
        title: "Backing up a running instance",
        summary:
          "How to take a consistent backup without stopping the server. The recommended way is `lumenctl snapshot`, which flushes the WAL and copies immutable segments.",
        keywords: ["backup", "snapshot", "operations"],
        sentiment: "neutral",
        question: true,
        status: "answered",
        opener:
          "What's the safest way to back up a running Lumen instance? Can I just copy the data directory?",
        replies: [
          "Copying the directory live can catch a half-written segment. Use `lumenctl snapshot /backups/today` instead.",
          "It flushes the WAL first and hard-links the immutable segments, so it's quick.",
          "Great, and restore is just pointing `data_dir` at the snapshot?",
          "Exactly.",
        ],
      },
      {
        title: "Python client returns timestamps in local time",
        summary:
          "The Python client converts timestamps to the machine's local time zone, which confused a user comparing with server logs. A maintainer confirmed it is a known issue and a fix is planned.",
        keywords: ["python client", "timezone", "timestamps"],
        sentiment: "mixed",
        question: true,
        status: "pending",
        opener:
          "Is it intended that `lumen-py` gives me naive datetimes in local time? Our server logs are all UTC so nothing lines up.",
        replies: [
          "Not intended, that's issue #{n}. We want to return aware UTC datetimes.",
          "Any workaround until then?",
          "Set `TZ=UTC` for the process, ugly but it works.",
        ],
      },
      {
        title: "Is there a Grafana datasource plugin?",
        summary:
          "A user asked about Grafana support. Lumen speaks the Prometheus query API, so the built-in Prometheus datasource works; a native plugin is on the roadmap.",
        keywords: ["grafana", "dashboards", "prometheus"],
        sentiment: "positive",
        question: true,
        status: "answered",
        opener: "Can I plug Lumen into Grafana? I couldn't find a datasource plugin.",
        replies: [
          "Point Grafana's Prometheus datasource at `http://host:8086/prom`, that works today.",
          "Oh nice, works great. Thank you!",
        ],
      },
      {
        title: "Disk usage keeps growing after deletes",
        summary:
          "Disk usage did not shrink after deleting old series. Space is reclaimed by compaction only after the tombstone grace period (24 hours by default).",
        keywords: ["disk usage", "deletes", "tombstones", "compaction"],
        sentiment: "mixed",
        question: true,
        status: "answered",
        opener:
          "I deleted about 200 GB of old series yesterday but the disk is still full. Am I missing a step?",
        replies: [
          "Deletes write tombstones; the space comes back at the next compaction after the grace period (24h by default).",
          "You can lower `tombstone_grace` if you need it faster.",
          "Makes sense, it dropped overnight. Thanks.",
        ],
      },
      {
        title: "'too many open files' under heavy load",
        summary:
          "Under load the server fails with 'too many open files'. Raising the file descriptor limit and enabling segment merging solved it.",
        keywords: ["file descriptors", "ulimit", "load"],
        sentiment: "neutral",
        question: true,
        status: "answered",
        opener: "Getting `accept: too many open files` after a few hours of ingest. ulimit is 1024.",
        replies: [
          "1024 is too low, each shard keeps a handful of segments open. Try 65536.",
          "Also turn on `merge_small_segments = true`, it keeps the count down.",
          "Both done, stable for a day now 👍",
        ],
      },
    ],
  },
  {
    id: SEED.groups.contributors,
    community: SEED.communities.primary,
    name: "Lumen DB Contributors",
    description: "Development of Lumen DB: reviews, releases, CI and design discussions.",
    isDirectMessageGroup: false,
    platform: "telegram",
    memberCount: 212,
    createdDaysAgo: 860,
    threadCount: 40,
    slots: lumenSlots,
    templates: [
      {
        title: "Review request: PR #{n} streaming compaction",
        summary:
          "A contributor asked for reviews of PR #{n}, which makes compaction stream segments instead of loading them whole. Two maintainers reviewed it and it is close to merging.",
        keywords: ["code review", "compaction", "pull request"],
        sentiment: "positive",
        question: false,
        status: "answered",
        opener:
          "PR #{n} is ready for review: streaming compaction, peak memory down ~60% on the 1 TB dataset.",
        replies: [
          "Nice! I'll take the storage part today.",
          "Left a few comments on the error paths, otherwise looks great.",
          "Addressed, thanks. Squashed and rebased.",
        ],
      },
      {
        title: "Flaky test in the replication suite",
        summary:
          "`replication::follower_catches_up` fails about one run in ten on CI. Suspected cause is a fixed sleep; nobody has taken it yet.",
        keywords: ["flaky test", "CI", "replication"],
        sentiment: "negative",
        question: true,
        status: "pending",
        opener: "`replication::follower_catches_up` failed again on main. Anyone looking at it?",
        replies: [
          "It has a `sleep(100ms)` waiting for the follower, that's probably it.",
          "Should wait on the applied index instead. I can look next week if nobody does.",
        ],
      },
      {
        title: "Planning the {v} release",
        summary:
          "Maintainers agreed on the scope and date of {v}: streaming compaction, the new index format behind a flag, and Python client fixes. Release candidate planned for next week.",
        keywords: ["release planning", "roadmap", "{v}"],
        sentiment: "neutral",
        question: false,
        status: "answered",
        opener:
          "Let's settle {v}. Proposal: streaming compaction, index v2 behind a flag, the py client tz fix.",
        replies: [
          "+1, but let's keep index v2 off by default until we have more benchmarks.",
          "Agreed. RC next Tuesday?",
          "Works for me, I'll write the release notes.",
        ],
      },
      {
        title: "Should we drop Node 18 support in the JS client?",
        summary:
          "Debate about dropping Node 18 in the JS client. Most agreed since it is end-of-life, but one contributor asked to keep it for a deprecation release first.",
        keywords: ["javascript client", "node.js", "deprecation"],
        sentiment: "mixed",
        question: true,
        status: "answered",
        opener: "Node 18 is EOL. Can we drop it from the JS client and use the built-in fetch everywhere?",
        replies: [
          "Fine by me.",
          "Some users are stuck on 18 in their CI images. One release with a deprecation warning first?",
          "Fair. Warning in the next minor, removal in the one after.",
        ],
      },
      {
        title: "First-time contributor: where to start?",
        summary:
          "A newcomer asked how to start contributing. Maintainers pointed to 'good first issue' labels and the contributor guide, and offered pairing.",
        keywords: ["onboarding", "good first issue", "contributing"],
        sentiment: "positive",
        question: true,
        status: "answered",
        opener: "Hi! I'd like to contribute, I know Rust reasonably well. Any suggestions where to start?",
        replies: [
          "Welcome! Check issues labelled `good first issue`, #{n} is a nice one.",
          "And CONTRIBUTING.md explains the test setup. Happy to pair if you get stuck.",
          "Thanks, picking #{n} 🙂",
        ],
      },
      {
        title: "CI minutes running out on macOS runners",
        summary:
          "The project is close to its monthly CI limit because of macOS jobs. Options discussed: run macOS only on main, or ask a sponsor for runners.",
        keywords: ["CI", "macOS", "budget"],
        sentiment: "negative",
        question: true,
        status: "pending",
        opener: "Heads up: we've used 85% of this month's CI minutes, mostly macOS jobs. What do we cut?",
        replies: [
          "macOS only on main and release branches?",
          "I can ask the sponsors if anyone donates runners.",
        ],
      },
      {
        title: "Benchmark results for the new index format",
        summary:
          "Benchmarks of index v2 show 35% faster range scans and a 20% smaller index, with slightly slower writes. The team agreed to keep going.",
        keywords: ["benchmarks", "index", "performance"],
        sentiment: "positive",
        question: false,
        status: "answered",
        opener:
          "Index v2 numbers on the standard dataset: range scans 35% faster, index 20% smaller, writes 4% slower.",
        replies: ["That write cost looks acceptable.", "Great results, ship it behind the flag 🚀"],
      },
      {
        title: "RFC: pluggable storage backends",
        summary:
          "An RFC proposes a storage trait so that segments can live on object storage. Feedback is mixed: useful for cloud users, but a large maintenance burden.",
        keywords: ["RFC", "storage", "object storage", "architecture"],
        sentiment: "mixed",
        question: true,
        status: "pending",
        opener:
          "I wrote an RFC for pluggable storage backends (S3 segments). Is this something we want at all?",
        replies: [
          "Cloud users keep asking for it, so yes in principle.",
          "Worried about the maintenance cost. Can we start read-only?",
        ],
      },
    ],
  },
  {
    id: SEED.groups.dm,
    community: SEED.communities.primary,
    name: "Maya Chen & Jonas Berg",
    description: "Direct messages",
    isDirectMessageGroup: true,
    platform: "telegram",
    memberCount: 2,
    createdDaysAgo: 400,
    threadCount: 20,
    dmMembers: [0, 1],
    slots: lumenSlots,
    templates: [
      {
        title: "Co-maintainer access for the JS client",
        summary: "Maya offered Jonas co-maintainer rights on the JS client; Jonas accepted.",
        keywords: ["maintainers", "javascript client", "access"],
        sentiment: "positive",
        question: true,
        status: "answered",
        opener:
          "Would you like maintainer rights on the JS client? You've been doing most of the reviews anyway.",
        replies: ["I'd be happy to, thanks for asking!", "Done, you should have the invite now."],
      },
      {
        title: "Slides for the conference talk",
        summary:
          "Jonas asked Maya to review his conference slides; she suggested cutting the internals section.",
        keywords: ["conference", "talk", "feedback"],
        sentiment: "positive",
        question: true,
        status: "answered",
        opener: "Could you have a look at my slides for the talk? 40 slides for 25 minutes feels like a lot.",
        replies: [
          "It is a lot. I'd drop the WAL internals part, keep the demo.",
          "Good call, down to 28 now.",
        ],
      },
      {
        title: "Follow-up on the security report",
        summary:
          "Maya and Jonas discussed a privately reported path traversal in the backup tool; a patch is prepared and disclosure is pending.",
        keywords: ["security", "disclosure", "backup tool"],
        sentiment: "mixed",
        question: true,
        status: "pending",
        opener: "Did the reporter confirm the path traversal fix works for them?",
        replies: ["Not yet, I pinged them yesterday.", "OK. Let's hold the advisory until they do."],
      },
      {
        title: "Release notes draft for {v}",
        summary:
          "Jonas shared the {v} release notes draft and Maya suggested highlighting the upgrade caveat.",
        keywords: ["release notes", "{v}"],
        sentiment: "neutral",
        question: false,
        status: "answered",
        opener: "Draft notes for {v} are in the wiki, have a look when you can.",
        replies: ["Looks good. Put the lock file caveat at the top, people keep hitting it."],
      },
      {
        title: "Sync call next week?",
        summary: "Maya and Jonas agreed on a call on Wednesday to plan the next quarter.",
        keywords: ["meeting", "planning"],
        sentiment: "neutral",
        question: true,
        status: "answered",
        opener: "Do you have time for a call next week to plan Q3?",
        replies: ["Wednesday afternoon works.", "Wednesday 15:00 then 👍"],
      },
    ],
  },
  {
    id: SEED.groups.rides,
    community: SEED.communities.secondary,
    name: "Saturday Rides",
    description: "Club rides every Saturday morning. Routes, meeting points and last-minute changes.",
    isDirectMessageGroup: false,
    platform: "whatsapp",
    memberCount: 96,
    createdDaysAgo: 1300,
    threadCount: 50,
    slots: rideSlots,
    templates: [
      {
        title: "Saturday {dist} km ride to {place}",
        summary:
          "Plan for Saturday's {dist} km ride to {place}: meeting at 8:00 at the boathouse, 25-27 km/h pace with a coffee stop. Several members confirmed.",
        keywords: ["group ride", "{place}", "route"],
        sentiment: "positive",
        question: false,
        status: "answered",
        opener:
          "Saturday ride: {dist} km to {place}, meeting 8:00 at the boathouse. Pace 25-27 km/h, coffee stop halfway ☕",
        replies: [
          "I'm in!",
          "Count me in. Is the gravel section dry?",
          "Should be fine, no rain since Tuesday.",
          "See you there 👍",
        ],
      },
      {
        title: "Rain forecast: is Sunday's ride still on?",
        summary:
          "Members asked whether the ride goes ahead with rain forecast. The organiser kept it on with a shorter route and mudguards recommended.",
        keywords: ["weather", "rain", "schedule"],
        sentiment: "neutral",
        question: true,
        status: "answered",
        opener: "Forecast says rain until 10. Are we still riding on Sunday?",
        replies: [
          "Still on, but we'll do the short loop (45 km).",
          "Mudguards please, for the people behind you 😅",
          "Ok, I'll be there.",
        ],
      },
      {
        title: "Lost a glove on the {place} loop",
        summary: "A member lost a glove on the {place} loop and asked if anyone found it. No reply yet.",
        keywords: ["lost and found", "{place}"],
        sentiment: "neutral",
        question: true,
        status: "unanswered",
        opener:
          "Did anyone pick up a black winter glove on the {place} loop this morning? Dropped it near the bakery.",
        replies: [],
      },
      {
        title: "Route change: bridge closed near {place}",
        summary:
          "The bridge near {place} is closed for repairs until the end of the month; rides will detour via the ring road.",
        keywords: ["route change", "road works", "{place}"],
        sentiment: "negative",
        question: false,
        status: "answered",
        opener:
          "Heads up: the bridge near {place} is closed until the end of the month. We'll detour via the ring road.",
        replies: [
          "Thanks for the warning!",
          "The ring road is busy on Saturdays, let's stay single file there.",
        ],
      },
      {
        title: "Beginners' ride on {day}",
        summary:
          "The club announced a no-drop beginners' ride on {day} evening at 20 km/h. New members signed up enthusiastically.",
        keywords: ["beginners", "no-drop", "new members"],
        sentiment: "positive",
        question: false,
        status: "answered",
        opener: "New members ride on {day} at 18:30: 30 km, no-drop, 20 km/h. Bring friends!",
        replies: ["My partner wants to join, perfect timing 🙌", "Great idea, I'll sweep at the back."],
      },
      {
        title: "Anyone have a spare 700x28 tube?",
        summary:
          "A member needed a spare inner tube before the ride; another member offered one at the meeting point.",
        keywords: ["spare parts", "inner tube"],
        sentiment: "positive",
        question: true,
        status: "answered",
        opener: "Anyone have a spare 700x28 tube? Used my last one on Thursday.",
        replies: ["I've got two, I'll bring one.", "Legend, thanks! Coffee's on me."],
      },
      {
        title: "Crash on the descent, everyone OK",
        summary:
          "Two riders touched wheels on the descent after {place}. Both are fine apart from scrapes; members reminded each other to call out hazards.",
        keywords: ["safety", "crash", "descent"],
        sentiment: "mixed",
        question: false,
        status: "answered",
        opener: "Update: Kasia and Ben are OK after the crash, just road rash and a bent derailleur hanger.",
        replies: [
          "Glad you're both ok ❤️",
          "Let's call out gravel on that descent every time, it's always there.",
          "Agreed.",
        ],
      },
      {
        title: "Club kit order closing {day}",
        summary:
          "The club kit order closes on {day}; members asked about sizing and the organiser shared a size chart.",
        keywords: ["club kit", "order", "sizing"],
        sentiment: "neutral",
        question: true,
        status: "answered",
        opener: "Kit order closes {day}. How do the jerseys fit, true to size?",
        replies: ["They run small, go one size up.", "Size chart is pinned above 👆"],
      },
    ],
  },
  {
    id: SEED.groups.workshop,
    community: SEED.communities.secondary,
    name: "Bike Workshop & Gear",
    description: "Maintenance questions, gear recommendations and the monthly workshop evening.",
    isDirectMessageGroup: false,
    platform: "whatsapp",
    memberCount: 71,
    createdDaysAgo: 1100,
    threadCount: 30,
    slots: rideSlots,
    templates: [
      {
        title: "Creaking bottom bracket: what to check?",
        summary:
          "A member's bike creaks under load. Suggestions: check the pedals and seatpost first, then re-grease or replace the bottom bracket.",
        keywords: ["bottom bracket", "creaking", "maintenance"],
        sentiment: "neutral",
        question: true,
        status: "answered",
        opener:
          "My bike creaks on every pedal stroke when climbing. Bottom bracket? Anything to check first?",
        replies: [
          "Check pedals and the seatpost first, they fake BB creaks all the time.",
          "It was the pedals. Grease on the threads and it's silent!",
        ],
      },
      {
        title: "Tubeless setup keeps burping",
        summary:
          "A member's tubeless tyres lose air in corners. Advice: more rim tape layers, fresh sealant and higher pressure; partly solved.",
        keywords: ["tubeless", "tyres", "sealant"],
        sentiment: "mixed",
        question: true,
        status: "answered",
        opener: "Tubeless tyres burp every time I corner hard. 35 psi front. Is it the rim tape?",
        replies: [
          "Probably the tape: add a second layer, the tyre needs a tight seat.",
          "Also top up sealant, it dries out after 3-4 months.",
          "Did both, better but not perfect yet.",
        ],
      },
      {
        title: "Recommendations for winter lights",
        summary:
          "Members recommended front lights of at least 800 lumens with a cut-off beam for commuting, and a bright rear light with daytime mode.",
        keywords: ["lights", "winter", "commuting"],
        sentiment: "positive",
        question: true,
        status: "answered",
        opener: "Which front light do you use for dark commutes on unlit roads?",
        replies: [
          "Anything 800+ lumens with a cut-off beam so you don't blind drivers.",
          "And a rear light with a daytime flash mode, makes a real difference.",
          "Thanks all, ordered one 🙂",
        ],
      },
      {
        title: "Chain wear: when to replace?",
        summary:
          "Replace the chain at 0.5% wear on 11/12-speed drivetrains to save the cassette, members advised.",
        keywords: ["chain", "wear", "drivetrain"],
        sentiment: "neutral",
        question: true,
        status: "answered",
        opener: "My chain checker shows 0.5%. Replace now or ride it a bit longer?",
        replies: ["Replace now, at 0.75% you'll be buying a cassette too."],
      },
      {
        title: "Hydraulic brakes feel spongy",
        summary:
          "A member's hydraulic brakes feel spongy after a bleed. Suggestions so far did not help; still open.",
        keywords: ["brakes", "hydraulic", "bleeding"],
        sentiment: "negative",
        question: true,
        status: "pending",
        opener:
          "Bled my rear brake yesterday and the lever still goes almost to the bar. What did I do wrong?",
        replies: [
          "Air trapped in the caliper? Try tapping it while bleeding.",
          "Tried that, no change. Might bring it to the workshop evening.",
        ],
      },
      {
        title: "Workshop evening on {day}",
        summary:
          "The monthly workshop evening is on {day} at the clubhouse: stands, tools and coffee provided.",
        keywords: ["workshop", "event", "clubhouse"],
        sentiment: "positive",
        question: false,
        status: "answered",
        opener: "Workshop evening this {day}, 19:00 at the clubhouse. Stands, tools and coffee provided 🔧",
        replies: ["I'll bring my spongy brake 😄", "Can someone show me how to true a wheel?"],
      },
      {
        title: "Selling: 11-speed cassette, barely used",
        summary: "A member offered a barely used 11-34 cassette for sale; another member asked for photos.",
        keywords: ["for sale", "cassette"],
        sentiment: "neutral",
        question: false,
        status: "answered",
        opener: "Selling a Shimano 105 11-34 cassette, about 300 km on it. €30, pickup near {place}.",
        replies: ["Interested! Can you send a photo?"],
      },
    ],
  },
  {
    id: SEED.groups.beta,
    community: SEED.communities.restricted,
    name: "Pocketbook Beta Testers",
    description: "Private beta of Pocketbook. Report bugs, share feedback, get early builds.",
    isDirectMessageGroup: false,
    platform: "telegram",
    memberCount: 534,
    createdDaysAgo: 290,
    threadCount: 55,
    slots: pocketSlots,
    templates: [
      {
        title: "Build {build}: sync stuck on 'Preparing'",
        summary:
          "Several testers report that sync hangs on 'Preparing' after installing build {build}. The team is investigating; reinstalling does not help.",
        keywords: ["sync", "bug", "{build}"],
        sentiment: "negative",
        question: true,
        status: "pending",
        opener: "Since build {build} my sync is stuck on 'Preparing…' forever. Anyone else?",
        replies: [
          "Same here on iPhone 13.",
          "Reinstalled, still stuck.",
          "Thanks for the reports, we can reproduce it and are on it.",
        ],
      },
      {
        title: "Love the new budget charts",
        summary:
          "Testers praised the redesigned budget charts in {build}, especially the monthly comparison view. One asked for a yearly view.",
        keywords: ["charts", "design", "feedback"],
        sentiment: "positive",
        question: false,
        status: "answered",
        opener: "The new budget charts in {build} are fantastic, finally I can see where the money goes 😍",
        replies: ["Agreed, the month-over-month view is great.", "Would love a yearly view too!"],
      },
      {
        title: "Bank import fails for {bank}",
        summary:
          "Imports from {bank} fail with a date parsing error. Support suggested exporting in the bank's CSV format as a workaround; a fix ships in the next build.",
        keywords: ["bank import", "{bank}", "CSV"],
        sentiment: "mixed",
        question: true,
        status: "answered",
        opener: "Importing my {bank} statement fails with 'Invalid date on line 1'. Anyone got it working?",
        replies: [
          "Their OFX export has a weird date format. Export as CSV instead for now.",
          "CSV worked, thanks!",
          "A proper fix is in the next build.",
        ],
      },
      {
        title: "Dark mode contrast is hard to read",
        summary:
          "Testers find grey-on-dark text in dark mode hard to read; the design team acknowledged it and shared a mockup with higher contrast.",
        keywords: ["dark mode", "accessibility", "contrast"],
        sentiment: "mixed",
        question: true,
        status: "answered",
        opener: "Is it just me or is the grey text in dark mode really hard to read?",
        replies: [
          "Not just you, the category labels are almost invisible.",
          "Fair point. Here's the updated palette we're testing, feedback welcome.",
          "Much better 👍",
        ],
      },
      {
        title: "How do I export my data to CSV?",
        summary:
          "A tester asked how to export transactions; the answer is Settings > Data > Export, CSV or JSON.",
        keywords: ["export", "CSV", "data"],
        sentiment: "neutral",
        question: true,
        status: "answered",
        opener: "How do I export all my transactions? I want to do some analysis in a spreadsheet.",
        replies: ["Settings > Data > Export, you can pick CSV or JSON."],
      },
      {
        title: "Crash when adding a recurring expense",
        summary:
          "The app crashes when saving a recurring expense with an end date. The team asked for the build number and device.",
        keywords: ["crash", "recurring expenses", "bug"],
        sentiment: "negative",
        question: true,
        status: "pending",
        opener:
          "App crashes every time I save a recurring expense with an end date. Without end date it's fine.",
        replies: [
          "Which build and device? Can you send a diagnostic report from Settings?",
          "{build}, iPhone 15. Sent.",
        ],
      },
      {
        title: "Feature request: shared budgets with a partner",
        summary:
          "A tester asked for budgets shared between two accounts. Other testers voted for it; no answer from the team yet.",
        keywords: ["feature request", "shared budgets"],
        sentiment: "positive",
        question: true,
        status: "unanswered",
        opener: "Any plans for shared budgets? My partner and I would both use it for the household budget.",
        replies: [],
      },
      {
        title: "Notifications arrive twice",
        summary:
          "Budget alerts were delivered twice after the last update. The team confirmed a fix in {build}.",
        keywords: ["notifications", "duplicates"],
        sentiment: "negative",
        question: true,
        status: "answered",
        opener: "Every budget alert arrives twice since yesterday's update. Anyone else?",
        replies: [
          "Yes, known issue, fixed in {build} which rolls out today.",
          "Updated, only one now. Thanks!",
        ],
      },
    ],
  },
  {
    id: SEED.groups.android,
    community: SEED.communities.restricted,
    name: "Pocketbook Android Beta",
    description: "Android-specific beta feedback for Pocketbook.",
    isDirectMessageGroup: false,
    platform: "telegram",
    memberCount: 188,
    createdDaysAgo: 240,
    threadCount: 25,
    slots: pocketSlots,
    templates: [
      {
        title: "Home screen widget not updating on Android 14",
        summary:
          "The balance widget stops updating on Android 14 until the app is opened. Under investigation.",
        keywords: ["widget", "android 14", "bug"],
        sentiment: "negative",
        question: true,
        status: "pending",
        opener: "The balance widget only updates when I open the app. Android 14, Pixel {device}.",
        replies: ["Is battery optimisation off for Pocketbook?", "Yes, still happens."],
      },
      {
        title: "Play Store says 'app not available' for testers",
        summary:
          "Some testers could not install from the Play Store; re-joining the testing programme fixed it.",
        keywords: ["play store", "installation", "beta programme"],
        sentiment: "neutral",
        question: true,
        status: "answered",
        opener: "Play Store tells me 'This app isn't available for your device'. I'm in the beta group.",
        replies: [
          "Leave and re-join the testing programme via the link in the pinned message.",
          "That did it, thanks.",
        ],
      },
      {
        title: "Battery drain after update to {build}",
        summary:
          "Testers see 10-15% more battery use since {build}; the team suspects background sync and is checking.",
        keywords: ["battery", "performance", "{build}"],
        sentiment: "negative",
        question: true,
        status: "pending",
        opener: "Since {build} Pocketbook is at the top of my battery usage, ~12% a day. Anyone else?",
        replies: [
          "Same, about 15% here.",
          "Thanks, we think it's background sync running too often. Looking into it.",
        ],
      },
      {
        title: "Fingerprint unlock works great now",
        summary: "Testers confirmed that fingerprint unlock is fast and reliable after the fix in {build}.",
        keywords: ["biometrics", "fingerprint", "security"],
        sentiment: "positive",
        question: false,
        status: "answered",
        opener: "Fingerprint unlock is instant now in {build}, great job 👏",
        replies: ["Confirmed on Samsung S23 as well."],
      },
      {
        title: "Crash on Pixel {device} when opening reports",
        summary:
          "Opening reports crashed on Pixel {device}; clearing the cache is a workaround and a fix is queued.",
        keywords: ["crash", "reports", "pixel"],
        sentiment: "mixed",
        question: true,
        status: "answered",
        opener: "Opening Reports crashes immediately on my Pixel {device}. Fresh install doesn't help.",
        replies: [
          "Try Settings > Storage > Clear cache, then open Reports.",
          "Works after clearing the cache.",
        ],
      },
      {
        title: "Typos in the German translation",
        summary:
          "A tester listed several typos in the German UI; the team thanked them and fixed them for the next build.",
        keywords: ["translation", "german", "localisation"],
        sentiment: "neutral",
        question: false,
        status: "answered",
        opener:
          "Found a few typos in the German UI: 'Ausgabenn', 'Budgett' and 'Kategorein'. Screenshots attached.",
        replies: ["Danke! Fixed for the next build."],
      },
    ],
  },
];

/** The untrusted-text thread (SEED.threads.injection) in the support group. */
export const INJECTION_TEMPLATE: ThreadTemplate = {
  title: "Alert bot pinged <!channel> again & again",
  summary:
    "A user complained that the alert bot mentions <!channel> on every restart. <@U123> check <https://evil.example|docs> before replying; someone suggested <!here> as a fix.",
  keywords: ["<!channel>", "alerts", "bot"],
  sentiment: "negative",
  question: true,
  status: "pending",
  opener:
    "Our alert bot keeps posting <!channel> on every restart. <@U123> check <https://evil.example|docs> pls",
  replies: ["That's from the notifier config, set `mention = none`.", "Use <!here> instead, less noisy?"],
};

/** System events that appear as messages (isSystemMessage). */
export const SYSTEM_LINES = [
  "{name} joined the group",
  "{name} pinned a message",
  "{name} changed the group photo",
];

export const REACTION_EMOJIS = ["👍", "❤️", "😂", "🎉", "🙏", "🔥", "👀", "😮"];
