/** Port: the current time. Tests pass a movable clock to check expiries (key grace, sessions, challenges). */
export type Clock = () => Date;
export const CLOCK = Symbol('Clock');
export const systemClock: Clock = () => new Date();

/** The instant `seconds` after `from` (an expiry: a key's grace end, a session's or challenge's lifetime). */
export function secondsAfter(from: Date, seconds: number): Date {
  return new Date(from.getTime() + seconds * 1000);
}

/** True when `expiresAt` is set and not after `now` (an expiry is exclusive: at that instant it no longer counts). */
export function hasExpired(expiresAt: Date | null, now: Date): boolean {
  return expiresAt !== null && expiresAt.getTime() <= now.getTime();
}
