/** Free meeting slots in a working day with a slot length, a buffer around meetings and a lunch hour. */
import type { TaskFamily } from "../family.ts";

interface Params extends Record<string, unknown> {
  fn: string;
  arg: string;
  role: string;
}

/** Meeting lists (start, end in minutes after midnight) that probe every slot grid, buffer and lunch. */
const MEETINGS = [
  "[]",
  "[(570, 597)]",
  "[(570, 592)]",
  "[(570, 587)]",
  "[(570, 582)]",
  "[(843, 897)]",
  "[(840, 892)]",
  "[(840, 887)]",
  "[(903, 950)]",
  "[(908, 950)]",
  "[(913, 950)]",
  "[(600, 640), (963, 990)]",
  "[(610, 625), (1000, 1030)]",
  "[(480, 540), (900, 960)]",
  "[(545, 560), (735, 790)]",
  "[(625, 655), (825, 850)]",
  "[(460, 475), (1045, 1100)]",
];

/** The `meeting_slots` family, registered in `./mod.ts`. */
export const meetingSlots: TaskFamily<Params> = {
  name: "meeting_slots",
  sampleParams: (rng) => ({
    fn: rng.pick(["free_slots", "open_slots", "available_slots", "bookable_slots"]),
    arg: rng.pick(["meetings", "bookings", "appointments"]),
    role: rng.pick(["consultant", "tutor", "therapist", "freelance designer"]),
  }),
  describe: (p, rng) =>
    rng.pick([
      `I'm a ${p.role} and people keep asking when I'm free. Given my ${p.arg} for a day as (start, end) pairs in minutes after midnight, list the start times (in minutes) of the slots I can still offer.`,
      `Can you write a helper that looks at the ${p.arg} already in my calendar for one day, each a (start, end) pair in minutes after midnight, and returns the start minutes of my free slots?`,
      `As a ${p.role} I need to offer free slots to clients. From a day's ${p.arg}, given as (start, end) minutes after midnight, return the list of slot start times in minutes that are still open.`,
    ]) + ` The signature of the function is: def ${p.fn}(${p.arg})`,
  facts: [
    {
      id: "day_start",
      keywords: ["day start", "start of day", "begin", "morning", "earliest"],
      choices: () => [9, 8, 7, 10],
      commonDefault: 9,
      statements: (v) => [`My working day starts at ${v} o'clock.`, `I begin taking meetings at ${v}.`],
      questions: () => ["What time does your day start?", "When do you begin in the morning?"],
    },
    {
      id: "day_end",
      keywords: ["day end", "end of day", "finish", "latest", "evening"],
      choices: () => [17, 16, 18, 19],
      commonDefault: 17,
      statements: (
        v,
      ) => [`My working day ends at ${v} o'clock.`, `I finish at ${v} and take nothing after that.`],
      questions: () => ["What time does your day end?", "When do you finish for the day?"],
    },
    {
      id: "slot_length",
      keywords: ["slot length", "slot duration", "long each slot", "slot last"],
      choices: () => [30, 15, 20, 60],
      commonDefault: 30,
      statements: (v) => [`Each slot is ${v} minutes long.`, `Slots last ${v} minutes.`],
      questions: () => ["How long should each slot be?", "What is the slot length?"],
    },
    {
      id: "buffer",
      keywords: ["buffer", "gap between", "breathing room"],
      choices: () => [0, 5, 10, 15],
      statements: (v) => [
        `I need a buffer of ${v} minutes before and after every meeting.`,
        `Keep ${v} minutes of buffer around each existing meeting.`,
      ],
      questions:
        () => ["Do you need a buffer between meetings?", "How big a gap between meetings do you need?"],
    },
    {
      id: "lunch",
      keywords: ["lunch"],
      choices: () => [12, 11, 13, 14],
      statements: (v) => [
        `I take a one-hour lunch break starting at ${v} o'clock.`,
        `Lunch is from ${v} o'clock for one hour, so no slots then.`,
      ],
      questions: () => ["When is your lunch break?", "Do you take lunch at a fixed time?"],
    },
  ],
  render: (p, v) =>
    [
      `def ${p.fn}(${p.arg}):`,
      `    start, end = ${v.day_start} * 60, ${v.day_end} * 60`,
      `    length, gap, lunch = ${v.slot_length}, ${v.buffer}, ${v.lunch} * 60`,
      `    slots, t = [], start`,
      `    while t + length <= end:`,
      `        busy = any(t < e + gap and t + length > s - gap for s, e in ${p.arg})`,
      `        if not busy and not (lunch - length < t < lunch + 60):`,
      `            slots.append(t)`,
      `        t += length`,
      `    return slots`,
      ``,
    ].join("\n"),
  testPool: (p, rng) => {
    const extra = Array.from({ length: 3 }, () => {
      const s = rng.int(30, 60) * 15 + rng.int(1, 14);
      return `[(${s}, ${s + rng.int(10, 70)})]`;
    });
    return [...new Set([...MEETINGS, ...extra])].map((m) => `${p.fn}(${m})`);
  },
};
