/**
 * The control block a harness process (child.ts) shares with each of its interpreters (worker.ts), and
 * the phase kinds check.py announces in it: one definition for the three sides.
 *
 * Int32 slots: INTERRUPT is Pyodide's interrupt buffer, SEQ counts phases, KIND/UNIT/JOB say what runs,
 * TARGET is the phase an interrupt is aimed at, ABANDONED tells an interpreter the process gave up on it.
 * START is a Float64 slot (byte offset 32): when the phase began.
 *
 * @module
 */

/** Slot indices of the control block. */
export const Control = {
  INTERRUPT: 0,
  SEQ: 1,
  KIND: 2,
  JOB: 3,
  UNIT: 4,
  TARGET: 5,
  ABANDONED: 6,
  START: 4,
  BYTES: 40,
} as const;

/** Phase kinds, numbered as check.py numbers them. */
export const Phase = { IDLE: 0, REFERENCE: 1, ANSWER: 2, CALLS: 3 } as const;
