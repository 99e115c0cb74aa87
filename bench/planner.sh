#!/bin/sh
# planner.sh: the parallelism the async planner finds on synthetic access
# patterns (banded as Lasso's columns, block-diagonal, bipartite as
# SGDMF's ratings, power-law, uniformly random) for 2 to 16 workers,
# against the bound min(T, n / most writers of one key), each plan
# checked for conflicts.  It only plans, so it needs no idle machine.
#
#   bench/planner.sh                  # 200000 iterations per pattern
#   BENCH_QUICK=1 bench/planner.sh    # 20000
set -eu
top_builddir=${top_builddir:-$(cd "$(dirname "$0")/.." && pwd)}
n=200000
test "${BENCH_QUICK:-0}" = 1 && n=20000
(cd "$top_builddir" && make -s bench/planner) || exit 1
"$top_builddir/bench/planner" "$n"
