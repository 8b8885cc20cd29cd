// A redis-server of a test's own that the test can stop and start again (chaos tests).
import { startThrowawayRedis, type ThrowawayRedis } from "../../dev/local-redis.js";

export type OwnRedis = ThrowawayRedis;
/** Persistent (append-only file), so what was written survives a stop and a start. */
export const startOwnRedis = (): Promise<OwnRedis> => startThrowawayRedis({ persist: true });
