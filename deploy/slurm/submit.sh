#!/usr/bin/env bash
# Submits the library build to Slurm: an array of SHARDS tasks (default 4), each rendering its
# shard into MEDRENDER_OUT, then a merge job that runs when every task has succeeded. Prints the
# two job ids ("ARRAY_ID MERGE_ID"). Extra arguments go to both sbatch calls (such as
# --partition=batch or --time=2:00:00); the MEDRENDER_* variables are those build-library.sbatch reads.
#
#   MEDRENDER_OUT=/shared/dist MEDRENDER_ARGS="--minutes 10,20" deploy/slurm/submit.sh 8 --partition=batch
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
shards=${1:-4}
shift || true
case $shards in
  '' | *[!0-9]* | 0) echo "submit.sh: $shards is not a number of shards; give a whole number of 1 or more" >&2; exit 64 ;;
esac
array=$(sbatch --parsable --array=0-$((shards - 1)) "$@" "$here/build-library.sbatch")
array=${array%%;*}
merge=$(sbatch --parsable --job-name=medrender-merge --dependency=afterok:"$array" --kill-on-invalid-dep=yes \
  --output=medrender-merge-%j.log "$@" "$here/build-library.sbatch" merge)
merge=${merge%%;*}
echo "$array $merge"
