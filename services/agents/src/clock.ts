/** Port: the current time. Tests pass a movable clock to check expiries (key grace, sessions, challenges). */
export type Clock = () => Date;
export const CLOCK = Symbol('Clock');
export const systemClock: Clock = () => new Date();
