/** Numeric scores to letter grades with cut-offs, a curve and a failing letter. */
import type { TaskFamily } from "../family.ts";

interface Params extends Record<string, unknown> {
  fn: string;
  arg: string;
  course: string;
}

const A_CUTOFFS = [90, 92, 93, 94, 95];
const B_CUTOFFS = [80, 82, 83, 85];
const C_CUTOFFS = [65, 68, 70, 72, 75];
const CURVES = [1, 2, 3, 4, 5];

/** The `grade_letters` family, registered in `./mod.ts`. */
export const gradeLetters: TaskFamily<Params> = {
  name: "grade_letters",
  sampleParams: (rng) => ({
    fn: rng.pick(["letter_grade", "score_to_letter", "grade_for", "to_letter_grade"]),
    arg: rng.pick(["score", "points", "mark"]),
    course: rng.pick([
      "biology class",
      "maths course",
      "history seminar",
      "chemistry lab",
      "coding bootcamp",
    ]),
  }),
  describe: (p, rng) =>
    rng.pick([
      `I teach a ${p.course} and need a function that turns a student's numeric ${p.arg} out of 100 into a letter grade the way I grade.`,
      `Could you write the grading helper for my ${p.course}? It takes a ${p.arg} between 0 and 100 and gives back the letter grade as a string.`,
      `I want to convert exam results from my ${p.course} into letter grades: "A", "B", "C" or a failing letter.`,
    ]) + ` The signature of the function is: def ${p.fn}(${p.arg})`,
  facts: [
    {
      id: "a_cutoff",
      keywords: ["top grade", "highest grade", "best grade", "top letter"],
      choices: () => A_CUTOFFS,
      commonDefault: 90,
      statements: (v) => [`An "A" starts at ${v}.`, `You need ${v} or more for the top grade, an "A".`],
      questions:
        () => ["What's the lowest score that earns the top grade?", "Where does the highest grade start?"],
    },
    {
      id: "b_cutoff",
      keywords: ["b", "b grade", "b cutoff"],
      choices: () => B_CUTOFFS,
      commonDefault: 80,
      statements: (v) => [`A "B" starts at ${v}.`, `You need ${v} or more for a "B".`],
      questions: () => ["What score do you need for a B?", "Where is the cut-off for a B grade?"],
    },
    {
      id: "c_cutoff",
      keywords: ["c", "c grade", "pass", "passing score"],
      choices: () => C_CUTOFFS,
      commonDefault: 70,
      statements: (v) => [`A "C" starts at ${v}.`, `Scores of ${v} and up pass with at least a "C".`],
      questions: () => ["What's the lowest passing score?", "How many points do you need for a C?"],
    },
    {
      id: "fail_letter",
      keywords: ["fail", "failing", "below c", "failing letter"],
      choices: () => ["F", "E", "U", "NP"],
      commonDefault: "F",
      statements: (v) => [`Anything below a "C" gets "${v}".`, `A failing score gets the letter "${v}".`],
      questions: () => ["What letter does a failing score get?", "What do students get below a C?"],
    },
    {
      id: "curve",
      keywords: ["curve", "curved", "bonus point", "extra point", "points added"],
      choices: () => CURVES,
      statements: (v) => [
        `Add ${v} points to every score before grading it.`,
        `Every score gets a curve of ${v} points before the letter is picked.`,
      ],
      questions: () => ["Do you curve the scores?", "Are any bonus points added to every score?"],
    },
  ],
  render: (p, v) =>
    [
      `def ${p.fn}(${p.arg}):`,
      `    ${p.arg} = ${p.arg} + ${v.curve}`,
      `    if ${p.arg} >= ${v.a_cutoff}:`,
      `        return "A"`,
      `    if ${p.arg} >= ${v.b_cutoff}:`,
      `        return "B"`,
      `    if ${p.arg} >= ${v.c_cutoff}:`,
      `        return "C"`,
      `    return "${v.fail_letter}"`,
      ``,
    ].join("\n"),
  testPool: (p, rng) => {
    // Every cut-off choice reached exactly after every curve choice, plus clear passes and fails.
    const scores = new Set<number>([0, 35, 50, 100]);
    for (const t of [...A_CUTOFFS, ...B_CUTOFFS, ...C_CUTOFFS]) for (const c of CURVES) scores.add(t - c);
    return rng.shuffle([...scores]).map((s) => `${p.fn}(${s})`);
  },
};
