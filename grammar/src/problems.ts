/**
 * Collects a parse's problems under the rule "one mistake gives one error".
 *
 * Syntax problems cascade: once the parser is off track, whatever it says next is likely fallout of the
 * same mistake (and chevrotain's recovery may guess differently from the hand-written checks). So only the
 * earliest syntax problem of a parse is kept, and "leftover input" only when nothing else was found.
 * Semantic problems (a duplicate enum member or field) are independent of each other and all kept, one per
 * position, but only when the syntax is sound: next to a syntax error they are more likely its fallout.
 */
export interface Problem {
  message: string;
  start: number;
  end: number;
}

export class ProblemCollector {
  private syntax: Problem | undefined;
  private leftover: Problem | undefined;
  private semantic: Problem[] = [];

  reset(): void {
    this.syntax = undefined;
    this.leftover = undefined;
    this.semantic = [];
  }

  addSyntax(problem: Problem): void {
    if (this.syntax === undefined || problem.start < this.syntax.start) this.syntax = problem;
  }

  addLeftover(problem: Problem): void {
    this.leftover ??= problem;
  }

  addSemantic(problem: Problem): void {
    if (!this.semantic.some((other) => other.start === problem.start)) this.semantic.push(problem);
  }

  /** The problems to report; `earlier` tells whether something (the lexer) already reported a problem. */
  take(earlier: boolean): Problem[] {
    const syntax = this.syntax ?? (earlier || this.semantic.length > 0 ? undefined : this.leftover);
    // A syntax error makes semantic findings suspect (a dropped `)` turns the next field into a "duplicate"
    // enum member): they wait until the syntax is fixed.
    return syntax === undefined ? [...this.semantic].sort((a, b) => a.start - b.start) : [syntax];
  }
}
