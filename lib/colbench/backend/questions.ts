/**
 * Questions that sound reasonable but ask for nothing the user knows; the mediocre collaborator wastes
 * turns on them. No family keyword may match them (checked by `tests/families_test.ts`).
 *
 * @module
 */

/**
 * Generic questions that reveal no hidden fact.
 *
 * @example
 * ```ts
 * import { USELESS_QUESTIONS } from "./questions.ts";
 * console.log(USELESS_QUESTIONS[0]);
 * ```
 */
export const USELESS_QUESTIONS: readonly string[] = [
  "Should I add comments to the code?",
  "Do you want type hints on the function?",
  "Is performance important for this?",
  "Would you like a docstring?",
  "Which Python version are you using?",
  "Should I use any external libraries?",
  "Do you prefer short or descriptive variable names?",
  "Is this for a school project or for work?",
];
