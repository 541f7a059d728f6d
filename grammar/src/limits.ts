/**
 * The one bound on how deep the trees of the small languages may be, enforced while parsing so that no
 * later stage (type checking, the IR, the runtime's evaluator, the editor's helpers, all of which walk
 * trees recursively) ever receives a deeper one.
 *
 * A tree's height counts its nodes from the root to the deepest leaf: `a` is 1, `a.b` 2, `!a.b` 3. In an
 * expression every operator, `.name`, `[index]`, call and `!` adds a level, and so does every pair of
 * parentheses (they are levels of the parser's recursion, though not of the tree). In a type expression
 * `list<…>`, `{ … }` and `?` add one. 64 is far beyond what anyone writes (GitHub Actions stops at 50)
 * and leaves the parser, which recurses about 5 KB of stack per parenthesis, most of the stack.
 */
export const MAX_TREE_HEIGHT = 64;

/**
 * The longest expression (the inside of one `${{ }}`, or a condition) or type expression that is parsed:
 * its tokens take about 100 bytes a character (an expression of 7 MB took 700 MB), and none needs more.
 */
export const MAX_EXPRESSION_LENGTH = 100_000;

export function tooDeepMessage(what: 'expression' | 'type expression'): string {
  const levels =
    what === 'expression'
      ? 'each operator, ".name", "[index]", call, "!" and pair of parentheses adds one'
      : 'each "list<", "{" and "?" adds one';
  return `${what} nested more than ${MAX_TREE_HEIGHT} levels deep (${levels}); simplify it`;
}
