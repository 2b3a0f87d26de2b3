/**
 * Page-design episodes of the embedded frontend suite, as the paper's protocol plays them: each round the
 * designer shows a page, the simulator compares it with the reference and names the most salient
 * differences, and the designer revises; at most 10 rounds, and the page that counts is the last one shown.
 *
 * The scripted simulator sees only the two pages, never the dialogue, as the paper's VLM simulator sees
 * only the two screenshots. Scripted designers write in the suite's vocabulary, so their page's design is
 * known exactly and the simulator compares designs (`describeDifferences`); its sentences are the ones a
 * careful viewer of the two renders would say.
 *
 * @module
 */
import type { PageDesign } from "./design.ts";
import type { Designer } from "./designer.ts";
import { describeDifferences } from "./differences.ts";
import { renderDesign } from "./render_design.ts";
import type { FrontendTask } from "./task.ts";

/** The paper's round limit. */
export const MAX_DESIGN_ROUNDS = 10;

/** One round: the page the designer showed and the simulator's reply to it. */
export interface DesignRound {
  /** The page's HTML (the suite's utility classes; no stylesheet, `pageDocument` adds it). */
  readonly html: string;
  /** The simulator's sentences; empty when it saw no difference, which ends the episode. */
  readonly feedback: readonly string[];
}

/** A played episode. */
export interface DesignEpisode {
  readonly taskId: string;
  readonly designer: string;
  readonly rounds: readonly DesignRound[];
  /** The last page shown: what the visual reward scores. */
  readonly finalHtml: string;
}

/** Options of {@link playDesignEpisode}. */
export interface DesignEpisodeOptions {
  /** Round limit (default {@link MAX_DESIGN_ROUNDS}). */
  maxRounds?: number;
  /** Most differences the simulator names per reply (default 3, "a few sentences"). */
  sentences?: number;
}

/**
 * Plays one episode of `designer` on `task` against the scripted simulator.
 *
 * @example
 * ```ts
 * import { playDesignEpisode } from "./episode.ts";
 * import { OracleDesigner } from "./oracle_designer.ts";
 * import { loadPageSplit } from "./splits.ts";
 * const [task] = await loadPageSplit("test");
 * const episode = playDesignEpisode(task, new OracleDesigner());
 * episode.rounds.length; // 1: the simulator sees no difference
 * ```
 */
export function playDesignEpisode(
  task: FrontendTask,
  designer: Designer,
  options: DesignEpisodeOptions = {},
): DesignEpisode {
  const maxRounds = options.maxRounds ?? MAX_DESIGN_ROUNDS;
  if (!Number.isInteger(maxRounds) || maxRounds < 1) {
    throw new RangeError(`maxRounds must be >= 1, got ${maxRounds}`);
  }
  const rounds: DesignRound[] = [];
  let page: PageDesign = designer.initial(task);
  for (let round = 0; round < maxRounds; round++) {
    const feedback = describeDifferences(page, task.design, options.sentences ?? 3);
    rounds.push({ html: renderDesign(page), feedback });
    if (feedback.length === 0 || round + 1 === maxRounds) break;
    page = designer.revise(task, page, feedback);
  }
  return { taskId: task.task_id, designer: designer.name, rounds, finalHtml: rounds[rounds.length - 1].html };
}
