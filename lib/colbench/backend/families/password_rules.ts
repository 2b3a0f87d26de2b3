/** Password validation against length limits, digit and uppercase counts and a forbidden character. */
import type { TaskFamily } from "../family.ts";
import type { Rng } from "../../../util/rng.ts";

interface Params extends Record<string, unknown> {
  fn: string;
  site: string;
}

const FORBIDDEN = ["#", "&", "%", "$", "!", "?"];
const plural = (v: unknown, word: string) => `${v} ${word}${v === 1 ? "" : "s"}`;

/** A random password of `length` characters with exactly `digits` digits and `uppers` capitals. */
function password(rng: Rng, length: number, digits: number, uppers: number, extra = ""): string {
  const chars = [...extra];
  for (let i = 0; i < digits; i++) chars.push(rng.pick([..."23456789"]));
  for (let i = 0; i < uppers; i++) chars.push(rng.pick([..."ABCDEFGHJKLMNPQRSTUVWXYZ"]));
  while (chars.length < length) chars.push(rng.pick([..."abcdefghijkmnopqrstuvwxyz"]));
  return rng.shuffle(chars).join("");
}

/** The `password_rules` family, registered in `./mod.ts`. */
export const passwordRules: TaskFamily<Params> = {
  name: "password_rules",
  sampleParams: (rng) => ({
    fn: rng.pick(["check_password", "is_valid_password", "password_ok"]),
    site: rng.pick(["banking app", "staff portal", "online store", "game server"]),
  }),
  describe: (p, rng) =>
    rng.pick([
      `I'm building the sign-up form for our ${p.site} and need a function that returns True if a password follows our rules and False otherwise.`,
      `Can you write the password validator for our ${p.site}? It takes the password string and says whether it is acceptable.`,
    ]) + ` The signature of the function is: def ${p.fn}(password)`,
  facts: [
    {
      id: "min_length",
      keywords: ["minimum length", "min length", "shortest", "too short"],
      choices: () => [6, 8, 10, 12],
      commonDefault: 8,
      statements: (v) => [
        `A password needs at least ${v} characters.`,
        `Passwords shorter than ${v} characters are rejected.`,
      ],
      questions: () => ["What's the minimum length?", "What's the shortest password you accept?"],
    },
    {
      id: "max_length",
      keywords: ["maximum length", "max length", "long", "longest", "too long"],
      choices: () => [16, 20, 24, 32, 40],
      statements: (v) => [
        `A password can have at most ${v} characters.`,
        `Passwords longer than ${v} characters are rejected.`,
      ],
      questions: () => ["What's the maximum length?", "How long can a password be?"],
    },
    {
      id: "min_digits",
      keywords: ["digit", "number", "numeral"],
      choices: () => [0, 1, 2, 3],
      commonDefault: 1,
      statements: (v) => [
        `A password needs at least ${plural(v, "digit")}.`,
        `It must contain ${v} or more digits.`,
      ],
      questions: () => ["Does a password need digits?", "How many numbers must it contain?"],
    },
    {
      id: "min_upper",
      keywords: ["uppercase", "upper case", "capital", "capital letter"],
      choices: () => [0, 1, 2, 3],
      statements: (v) => [
        `A password needs at least ${plural(v, "uppercase letter")}.`,
        `It must contain ${v} or more capital letters.`,
      ],
      questions: () => ["Does it need uppercase letters?", "How many capital letters are required?"],
    },
    {
      id: "forbidden",
      keywords: ["forbidden", "not allowed", "banned", "disallowed", "symbol"],
      choices: () => FORBIDDEN,
      statements: (v) => [
        `The character "${v}" is not allowed anywhere in a password.`,
        `Passwords must not contain "${v}".`,
      ],
      questions: () => ["Which character is not allowed?", "Are any symbols forbidden?"],
    },
  ],
  render: (p, v) =>
    [
      `def ${p.fn}(password):`,
      `    if len(password) < ${v.min_length} or len(password) > ${v.max_length}:`,
      `        return False`,
      `    if sum(ch.isdigit() for ch in password) < ${v.min_digits}:`,
      `        return False`,
      `    if sum(ch.isupper() for ch in password) < ${v.min_upper}:`,
      `        return False`,
      `    if "${v.forbidden}" in password:`,
      `        return False`,
      `    return True`,
      ``,
    ].join("\n"),
  testPool: (p, rng) => {
    const words: string[] = [];
    for (const n of [6, 7, 8, 9, 10, 11, 12]) words.push(password(rng, n, 3, 3));
    for (const n of [16, 17, 20, 21, 24, 25, 32, 33, 40, 41]) words.push(password(rng, n, 3, 3));
    for (const k of [0, 1, 2]) words.push(password(rng, 14, k, 3), password(rng, 14, 3, k));
    // Just passing several rules at once: fails under any stricter choice of each of them.
    for (const n of [6, 8, 10, 12]) words.push(password(rng, n, 1, 1), password(rng, n, 2, 2));
    for (const ch of FORBIDDEN) words.push(password(rng, 14, 3, 3, ch));
    // Every forbidden choice but one: valid only under the missing one.
    for (const ch of FORBIDDEN) {
      words.push(password(rng, 15, 3, 3, FORBIDDEN.filter((c) => c !== ch).join("")));
    }
    return [...new Set(words)].map((w) => `${p.fn}("${w}")`);
  },
};
