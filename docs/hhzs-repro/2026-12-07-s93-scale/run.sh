#!/usr/bin/env bash
# One load of B3 and of HINTFS at K times the harness's sizes, then A, C and F from copies of each,
# the schemes alternating. From the repository's root: K=8 B=BUILD bash run.sh
set -uo pipefail
P=$(dirname $0)/sphase.sh
for s in B3 HINTFS; do echo "== $s load"; S=$s bash $P load; done
for w in ${PHASES:-A C F}; do
  for s in B3 HINTFS; do echo "== $s $w"; S=$s W=$w bash $P; done
done
