#!/usr/bin/env bash
# Runs a fio job file and prints one line per job: read and write bandwidth,
# IOPS, mean completion latency, and errors. Variables the job file uses
# (DEV, DIR, SIZE, RUNTIME) come from the environment; SIZE defaults to 64M
# and RUNTIME to 10 (seconds).
#   bash fio-jobs/run.sh JOBFILE
# Exits 1 if fio fails or any job reports an error.
set -euo pipefail
JOB=${1:?usage: run.sh JOBFILE}
[ -f "$JOB" ] || { echo "run.sh: no job file $JOB" >&2; exit 2; }
export SIZE=${SIZE:-64M} RUNTIME=${RUNTIME:-10}
OUT=$(mktemp)
trap 'rm -f "$OUT"' EXIT
if ! fio --output-format=json --output="$OUT" "$JOB" >/dev/null 2>"$OUT.err"; then
  cat "$OUT.err" >&2; rm -f "$OUT.err"
  echo "run.sh: fio failed on $JOB" >&2
  exit 1
fi
rm -f "$OUT.err"
python3 - "$OUT" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
j = json.loads(text[text.index("{"):])  # fio may print notes before the JSON
bad = 0
for job in j["jobs"]:
    r, w = job["read"], job["write"]
    def side(s):
        if s["io_bytes"] == 0:
            return "%32s" % "-"
        return "%9.1f MiB/s %8.0f IOPS %6.0f us" % (s["bw_bytes"] / 1048576.0, s["iops"], s["clat_ns"]["mean"] / 1000.0)
    print("%-16s read %s  write %s  errors %d" % (job["jobname"], side(r), side(w), job["error"]))
    bad += job["error"] != 0
sys.exit(1 if bad else 0)
PY
