import { type Static, Type } from '@sinclair/typebox';
import { DateTime } from './common.js';
import { Nullable, ref, StringEnum } from './typebox.js';

export const STREAK_STATUSES = ['active', 'inactive'] as const;

export const Streak = Type.Object(
  {
    value: Type.Integer({
      minimum: 0,
      description: 'Length in days of the current streak; 0 when it has expired or the user never claimed',
      examples: [3],
    }),
    status: StringEnum(STREAK_STATUSES, {
      description: '`active` while the streak can still be extended (last claim today or yesterday, UTC), else `inactive`',
    }),
    lastExpirationTime: Nullable({
      ...DateTime,
      description:
        'When the previous streak ended (for an inactive streak: when the last one ended); null if no streak has ended yet',
    }),
    nextExpirationTime: Nullable({
      ...DateTime,
      description:
        'When the current streak ends unless the user claims again: midnight UTC at the end of the day after the last claim day; null when inactive',
    }),
    lastCompletionTime: Nullable({ ...DateTime, description: "Time of the user's last claim; null if the user never claimed" }),
  },
  {
    $id: 'Streak',
    additionalProperties: false,
    description: 'Consecutive UTC days on which the user made at least one claim.',
  },
);
export type Streak = Static<typeof Streak>;

export const UserProfile = Type.Object(
  {
    ethEarned: Type.String({
      pattern: '^(0|[1-9][0-9]*)$',
      description: "ETH value in wei of every claim the user's address made, as a string of decimal digits",
      examples: ['1250000000000000000'],
    }),
    score: Type.Integer({ description: "The user's points", examples: [2500] }),
    streak: ref(Streak),
    ranking: Type.Integer({
      minimum: 1,
      description: '1-based rank by score among all users; equal scores share a rank (1 + users with a higher score)',
      examples: [4],
    }),
  },
  { $id: 'UserProfile', additionalProperties: false, description: "The caller's earnings, points, streak and rank." },
);
export type UserProfile = Static<typeof UserProfile>;
