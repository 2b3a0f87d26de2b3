/** Usernames built from first and last names with a separator, letter case, prefix and length limit. */
import type { TaskFamily } from "../family.ts";

interface Params extends Record<string, unknown> {
  fn: string;
  org: string;
}

const NAMES: [string, string][] = [
  ["Al", "Wu"],
  ["bo", "LI"],
  ["Jo", "Kim"],
  ["Ann", "Lee"],
  ["eva", "Stone"],
  ["Liam", "ORTIZ"],
  ["Maria", "Gonzalez"],
  ["Christopher", "Montgomery"],
  ["alexandra", "richardson"],
  ["MEI", "Chen"],
  ["Olivia", "brown"],
  ["Noah", "Fitzgerald"],
  ["zoe", "Hart"],
  ["Ian", "MacArthur"],
  ["Ruth", "Bader"],
  ["Tom", "Hughes"],
  ["Kai", "Nakamura"],
  ["Sam", "Oduya"],
  ["Priya", "Raman"],
  ["Luca", "Bianchi"],
];

/** The `username_format` family, registered in `./mod.ts`. */
export const usernameFormat: TaskFamily<Params> = {
  name: "username_format",
  sampleParams: (rng) => ({
    fn: rng.pick(["make_username", "build_username", "username_for"]),
    org: rng.pick(["company", "gaming forum", "university", "hospital"]),
  }),
  describe: (p, rng) =>
    rng.pick([
      `We create accounts for new people at our ${p.org} and I need a function that builds a username from someone's first and last name.`,
      `Please write a helper that turns a person's first name and last name into a username for our ${p.org}'s system.`,
      `I want usernames at our ${p.org} to follow one format. Can you write the function that makes one from a first and a last name?`,
    ]) + ` The signature of the function is: def ${p.fn}(first_name, last_name)`,
  facts: [
    {
      id: "separator",
      keywords: ["separator", "between", "join", "separate"],
      choices: () => [".", "_", "-"],
      commonDefault: ".",
      statements: (v) => [`Put "${v}" between the first and last name.`, `Join the two names with "${v}".`],
      questions:
        () => ["What separator goes between the names?", "How should the first and last name be joined?"],
    },
    {
      id: "letter_case",
      keywords: ["case", "lowercase", "uppercase", "capital", "capitalized"],
      choices: () => ["lower", "upper", "title"],
      commonDefault: "lower",
      statements: (v) => [
        `Put the names in ${v} case; the prefix stays as it is.`,
        `The name part is written in ${v} case.`,
      ],
      questions: () => ["Should usernames be upper or lower case?", "How should the letters be capitalized?"],
    },
    {
      id: "max_length",
      keywords: ["maximum length", "max length", "long", "longest", "length", "too long"],
      choices: () => [8, 10, 12, 16, 20],
      statements: (v) => [
        `A username is cut to at most ${v} characters, prefix included.`,
        `Keep only the first ${v} characters of the whole username.`,
      ],
      questions: () => ["How long can a username be?", "Is there a maximum length?"],
    },
    {
      id: "prefix",
      keywords: ["prefix", "start with", "begin with", "starts with"],
      choices: () => ["u_", "usr_", "emp-", "id", "acc."],
      statements: (
        v,
      ) => [`Every username starts with "${v}".`, `Put the prefix "${v}" in front of the names.`],
      questions: () => ["Should usernames have a prefix?", "What should every username start with?"],
    },
  ],
  render: (p, v) =>
    [
      `def ${p.fn}(first_name, last_name):`,
      `    username = first_name + "${v.separator}" + last_name`,
      `    username = "${v.prefix}" + username.${v.letter_case}()`,
      `    return username[:${v.max_length}]`,
      ``,
    ].join("\n"),
  testPool: (p, rng) => rng.shuffle(NAMES).map(([first, last]) => `${p.fn}("${first}", "${last}")`),
};
