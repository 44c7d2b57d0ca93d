#!/usr/bin/env bash
# scale/slurm/submit.sh — run one gpumc command as a sharded Slurm job array,
# then merge the shards' results in a dependent job.
#
# Usage:
#   scale/slurm/submit.sh [--shards N] [--gpu] [--partition P] [--time T]
#       [--merge-args "ARGS"] [--dry-run] --out DIR -- GPUMC_SUBCOMMAND_AND_ARGS...
#
# Example:
#   scale/slurm/submit.sh --shards 8 --out results/suite -- \
#       suite --expected ../shared/corpus/dat3m/expected/PTXv7_5-expected.csv
#
# It submits two jobs with sbatch:
#   1. a job array of N tasks (--array=0-(N-1); N from --shards, default 4).
#      Task K runs  gpumc ARGS... --shard auto --shard-out DIR ; gpumc reads
#      K and N from SLURM_ARRAY_TASK_ID/_MIN/_COUNT and writes
#      DIR/shard-K-of-N.jsonl (a journal: resubmitting the same command with
#      the same DIR and N resumes where the shards stopped). Logs:
#      DIR/slurm-ARRAYID_K.out.
#   2. a merge job, --dependency=afterany:ARRAYID (it runs even when tasks
#      failed, and then names the missing shards), running
#        gpumc merge DIR [MERGE_ARGS] > DIR/merged.out 2> DIR/merged.err
#      and then writing merge's exit status to DIR/merged.rc (last, so a
#      waiting script can poll for that file). merged.out is what the
#      unsharded command would have printed, and merge exits with its status.
#      Log: DIR/slurm-merge-MERGEID.out.
# and prints the two job ids on standard output, as shell assignments:
#   array_job=ARRAYID
#   merge_job=MERGEID
# (also written to DIR/jobs.env). Cancel with  scancel ARRAYID MERGEID.
#
# Options:
#   --shards N        number of array tasks (default 4).
#   --gpu             each array task asks for one GPU (--gres=gpu:1).
#   --partition P     sbatch --partition for both jobs.
#   --time T          sbatch --time for both jobs (Slurm's formats, e.g. 30, 2:00:00).
#   --merge-args "A"  arguments of `gpumc merge` after DIR, split on spaces
#                     (e.g. "--json", "--format herd", "--html report.html").
#                     Default: --json if ARGS contain --json, and --format F
#                     if ARGS contain --format F / --format=F.
#   --out DIR         the shards' directory (created; on a file system that
#                     every node sees). Earlier merged.* files are removed.
#   --dry-run         write the batch scripts and print the sbatch commands
#                     instead of running them.
#
# The gpumc binary: $GPUMC, else `gpumc` on PATH, resolved to an absolute path
# now (the jobs run that file). The jobs run in the current directory
# (sbatch --chdir), so relative paths in ARGS mean what they mean here, and
# with the submitting environment (sbatch's default --export=ALL: set
# SLURM_CONF, PATH, … before submitting). The batch scripts are written to
# DIR/slurm/ (shard.sbatch, merge.sbatch).
set -euo pipefail

die() { echo "submit.sh: $*" >&2; exit 2; }
usage() {
    sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//' >&2
    exit 2
}

shards=4 gpu=0 partition="" time_limit="" out="" dry=0
merge_args_set=0 merge_args=()
while [ $# -gt 0 ]; do
    case $1 in
    --shards) [ $# -ge 2 ] || die "--shards needs a value"; shards=$2; shift 2 ;;
    --shards=*) shards=${1#*=}; shift ;;
    --gpu) gpu=1; shift ;;
    --partition) [ $# -ge 2 ] || die "--partition needs a value"; partition=$2; shift 2 ;;
    --partition=*) partition=${1#*=}; shift ;;
    --time) [ $# -ge 2 ] || die "--time needs a value"; time_limit=$2; shift 2 ;;
    --time=*) time_limit=${1#*=}; shift ;;
    --merge-args) [ $# -ge 2 ] || die "--merge-args needs a value"
        merge_args_set=1; read -r -a merge_args <<<"$2"; shift 2 ;;
    --merge-args=*) merge_args_set=1; read -r -a merge_args <<<"${1#*=}"; shift ;;
    --out) [ $# -ge 2 ] || die "--out needs a value"; out=$2; shift 2 ;;
    --out=*) out=${1#*=}; shift ;;
    --dry-run) dry=1; shift ;;
    -h | --help) usage ;;
    --) shift; break ;;
    *) die "unknown option '$1' (the gpumc command goes after --; see --help)" ;;
    esac
done
args=("$@")

[ ${#args[@]} -gt 0 ] || die "no gpumc command after -- (see --help)"
[ -n "$out" ] || die "--out DIR is required"
[[ $shards =~ ^[1-9][0-9]*$ ]] || die "--shards must be a positive integer, not '$shards'"
for a in "${args[@]}"; do
    case $a in
    --shard | --shard=* | --shard-out | --shard-out=*)
        die "the gpumc command must not have $a: submit.sh adds --shard auto --shard-out DIR" ;;
    esac
done
case ${args[0]} in
merge) die "'merge' is what the merge job runs; give the command to shard" ;;
esac

# The gpumc binary, as an absolute path.
gpumc=${GPUMC:-}
if [ -z "$gpumc" ]; then
    gpumc=$(command -v gpumc) || die "gpumc is not on PATH; set GPUMC=/path/to/gpumc"
fi
{ [ -f "$gpumc" ] && [ -x "$gpumc" ]; } || die "gpumc binary '$gpumc' is not an executable file"
gpumc=$(readlink -f -- "$gpumc")

# What merge prints depends on the output format: pass it on.
if [ $merge_args_set = 0 ]; then
    n=${#args[@]}
    for ((i = 0; i < n; i++)); do
        case ${args[i]} in
        --json) merge_args+=(--json) ;;
        --format) [ $((i + 1)) -lt "$n" ] && merge_args+=(--format "${args[i + 1]}") ;;
        --format=*) merge_args+=(--format "${args[i]#*=}") ;;
        esac
    done
fi

command -v sbatch >/dev/null || [ $dry = 1 ] || die "sbatch not found (is Slurm installed, SLURM_CONF set?)"

mkdir -p -- "$out"
out=$(cd -- "$out" && pwd -P)
mkdir -p "$out/slurm"
rm -f "$out/merged.out" "$out/merged.err" "$out/merged.rc" "$out/merged.rc.tmp" "$out/jobs.env"
workdir=$(pwd -P)

q() { printf '%q ' "$@"; }

cat >"$out/slurm/shard.sbatch" <<EOF
#!/bin/bash
# Written by scale/slurm/submit.sh on $(date -u +%Y-%m-%dT%H:%M:%SZ): one shard (array task) of
#   gpumc $(q "${args[@]}")
exec $(q "$gpumc" "${args[@]}" --shard auto --shard-out "$out")
EOF

cat >"$out/slurm/merge.sbatch" <<EOF
#!/bin/bash
# Written by scale/slurm/submit.sh on $(date -u +%Y-%m-%dT%H:%M:%SZ): merges the shards in
#   $out
$(q "$gpumc" merge "$out" ${merge_args[@]+"${merge_args[@]}"})>$(q "$out/merged.out")2>$(q "$out/merged.err")
rc=\$?
echo "\$rc" >$(q "$out/merged.rc.tmp")&& mv -f $(q "$out/merged.rc.tmp" "$out/merged.rc")
exit "\$rc"
EOF
chmod +x "$out/slurm/shard.sbatch" "$out/slurm/merge.sbatch"

common=(--parsable --chdir="$workdir")
[ -n "$partition" ] && common+=(--partition="$partition")
[ -n "$time_limit" ] && common+=(--time="$time_limit")

array_opts=("${common[@]}" --job-name=gpumc-shard --array="0-$((shards - 1))"
    --output="$out/slurm-%A_%a.out")
[ $gpu = 1 ] && array_opts+=(--gres=gpu:1)

if [ $dry = 1 ]; then
    echo "sbatch $(q "${array_opts[@]}" "$out/slurm/shard.sbatch")"
    echo "sbatch $(q "${common[@]}" --job-name=gpumc-merge --dependency=afterany:ARRAYID \
        --output="$out/slurm-merge-%j.out" "$out/slurm/merge.sbatch")"
    exit 0
fi

# --parsable prints "ID" or "ID;CLUSTER".
array_id=$(sbatch "${array_opts[@]}" "$out/slurm/shard.sbatch") ||
    die "sbatch refused the job array"
array_id=${array_id%%;*}
[[ $array_id =~ ^[0-9]+$ ]] || die "sbatch printed '$array_id', not a job id"

merge_id=$(sbatch "${common[@]}" --job-name=gpumc-merge --dependency="afterany:$array_id" \
    --output="$out/slurm-merge-%j.out" "$out/slurm/merge.sbatch") || {
    scancel "$array_id" 2>/dev/null || true
    die "sbatch refused the merge job (job array $array_id cancelled)"
}
merge_id=${merge_id%%;*}

printf 'array_job=%s\nmerge_job=%s\n' "$array_id" "$merge_id" | tee "$out/jobs.env"
echo "submit.sh: $shards shards in job array $array_id, merge job $merge_id; result: $out/merged.out (exit status: $out/merged.rc)" >&2
