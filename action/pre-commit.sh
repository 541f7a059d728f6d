#!/usr/bin/env sh
# The pre-commit hook (.pre-commit-hooks.yaml): pre-commit runs this from its clone of the repository,
# in the repository being committed to. The first run builds the CLI in that clone (as the GitHub
# Action does: npm ci of the CLI's workspace, then cli/build.mjs); later runs reuse it. Needs Node 20
# or later and npm on the PATH.
set -eu
clone=$(cd "$(dirname "$0")/.." && pwd)
if [ ! -f "$clone/cli/dist/kairoku-playbook.bundle.cjs" ]; then
  echo "kairoku-playbook: building the CLI once in $clone" >&2
  (
    cd "$clone"
    npm ci --workspace cli --workspace playground --include-workspace-root=false --no-audit --no-fund --loglevel error >&2
    node cli/build.mjs >&2
  )
fi
exec node "$clone/cli/bin/kairoku-playbook.js" check "$@"
