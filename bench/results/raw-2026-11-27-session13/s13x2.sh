#!/usr/bin/env bash
# session 13 x2 call: multigpu_check tests,mpi-free sparse on 2 GPUs at HEAD (session 12 refactored
# the multi-gpu local plans onto TilePlan::rows_with_pivot / cols_with_pivot / word_tiles).
s0=$(date +%s)
OUT=$OUT/mg APSP_WERROR=OFF STEP_TIMEOUT=200 scripts/multigpu_check.sh tests,sparse 2>&1 | tail -40
echo "total $(( $(date +%s) - s0 )) s"
