#!/usr/bin/env bash
# scale/slurm/local-cluster.sh — a real single-node Slurm cluster on
# localhost, for tests of scale/slurm/submit.sh (tests/slurm_cluster.rs).
#
# Usage:
#   scale/slurm/local-cluster.sh start  STATE_DIR
#   scale/slurm/local-cluster.sh status STATE_DIR
#   scale/slurm/local-cluster.sh stop   STATE_DIR
#
# start   writes STATE_DIR/slurm.conf (and cgroup.conf), starts munged if no
#         munge daemon answers yet, then slurmctld and slurmd with
#         `-f STATE_DIR/slurm.conf`, and waits (GPUMC_SLURM_WAIT seconds,
#         default 60) until `sinfo` shows the node idle. On success it
#         prints one line, `export SLURM_CONF=STATE_DIR/slurm.conf`: the
#         client commands (sbatch, squeue, sinfo, scancel) need that
#         variable, e.g.  eval "$(scale/slurm/local-cluster.sh start /tmp/c)"
# status  prints which of the daemons it started still run, and `sinfo`.
# stop    cancels the cluster's jobs and ends the daemons that `start`
#         started (pid files in STATE_DIR; a munged that was already
#         running is left alone). Exits 0 when nothing is left running.
#
# Needs: root (slurmd launches jobs as their submitter; SlurmUser=root),
# Debian's slurm-wlm and munge packages (slurm 22.05):
#   apt-get install -y slurm-wlm munge
# No systemd is needed, and jobs are not put in cgroups: process tracking is
# proctrack/linuxproc, TaskPlugin=task/none, JobAcctGatherType=
# jobacct_gather/none. (slurmd 22.05 still loads a cgroup plugin at start;
# cgroup.conf: see write_conf.)
#
# Environment:
#   GPUMC_SLURM_PORT  slurmctld's port (default 6817); slurmd uses PORT+1.
#   GPUMC_SLURM_WAIT  seconds to wait for the node to become idle (60).
#   GPUMC_SLURM_CPUS  the node's CPUs (default: nproc).
set -euo pipefail

die() { echo "local-cluster.sh: $*" >&2; exit 2; }

usage() {
    sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//' >&2
    exit 2
}

[ $# -eq 2 ] || usage
cmd=$1
case $cmd in start | stop | status) ;; *) usage ;; esac
mkdir -p "$2"
state=$(cd "$2" && pwd -P)
conf=$state/slurm.conf
export SLURM_CONF=$conf

port=${GPUMC_SLURM_PORT:-6817}
wait_s=${GPUMC_SLURM_WAIT:-60}

# A pid from STATE_DIR/NAME.pid, when that process still runs.
alive_pid() {
    local f=$state/$1.pid pid
    [ -s "$f" ] || return 1
    pid=$(head -n1 "$f")
    [[ $pid =~ ^[0-9]+$ ]] || return 1
    kill -0 "$pid" 2>/dev/null || return 1
    echo "$pid"
}

munge_ok() { munge -n 2>/dev/null | unmunge >/dev/null 2>&1; }

logs_tail() {
    local f
    for f in "$state"/slurmctld.log "$state"/slurmd.log "$state"/munged.log; do
        [ -s "$f" ] || continue
        echo "--- last lines of $f" >&2
        tail -n 15 "$f" >&2
    done
}

start_munge() {
    if munge_ok; then
        return 0 # a munged already answers on the default socket: use it
    fi
    command -v munged >/dev/null || die "munged not found (apt-get install munge)"
    local key=/etc/munge/munge.key
    if [ ! -s "$key" ]; then
        mkdir -p /etc/munge
        if command -v mungekey >/dev/null; then
            mungekey --create --keyfile="$key" >/dev/null
        else
            dd if=/dev/urandom of="$key" bs=1 count=1024 status=none
        fi
        chmod 0400 "$key"
        if id munge >/dev/null 2>&1; then chown munge:munge "$key"; fi
    fi
    mkdir -p /run/munge /var/lib/munge /var/log/munge
    local log=$state/munged.log pidf=/run/munge/munged.pid
    rm -f "$pidf"
    if id munge >/dev/null 2>&1; then
        chown munge:munge /run/munge /var/lib/munge /var/log/munge
        chmod 0755 /run/munge
        touch "$log" && chown munge "$log"
        runuser -u munge -- munged --log-file="$log" --pid-file="$pidf" ||
            die "munged did not start (log: $log)"
    else
        # No munge user: run it as root (--force accepts root-owned files).
        munged --force --log-file="$log" --pid-file="$pidf" ||
            die "munged did not start (log: $log)"
    fi
    for _ in $(seq 50); do
        munge_ok && break
        sleep 0.1
    done
    munge_ok || { logs_tail; die "munged started but does not answer"; }
    # Remember it so that `stop` ends it (and only it).
    cp "$pidf" "$state/munged.pid"
}

write_conf() {
    local node cpus
    node=$(hostname -s)
    cpus=${GPUMC_SLURM_CPUS:-$(nproc)}
    mkdir -p "$state/ctld" "$state/spool"
    cat >"$conf" <<EOF
# Written by scale/slurm/local-cluster.sh: one node on localhost, jobs not in cgroups.
ClusterName=gpumc-local
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=$state/ctld
SlurmdSpoolDir=$state/spool
SlurmctldPidFile=$state/slurmctld.pid
SlurmdPidFile=$state/slurmd.pid
SlurmctldLogFile=$state/slurmctld.log
SlurmdLogFile=$state/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
ReturnToService=2
KillWait=5
MinJobAge=600
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=1024 State=UNKNOWN
PartitionName=debug Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
    # slurmd reads cgroup.conf beside slurm.conf. Slurm 22.05 always loads
    # a cgroup plugin in slurmd, even with no plugin that uses cgroups (it
    # has no CgroupPlugin=disabled: "cannot find cgroup plugin for
    # disabled"); autodetect picks cgroup/v1 on a v1 or hybrid host. On a
    # cgroup v2 host without systemd, cgroup/v2 would ask systemd (dbus) for
    # a scope: IgnoreSystemdOnFailure makes it create the scope itself.
    cat >"$state/cgroup.conf" <<EOF
CgroupPlugin=autodetect
IgnoreSystemdOnFailure=yes
EOF
}

do_start() {
    command -v slurmctld >/dev/null || die "slurmctld not found (apt-get install slurm-wlm munge)"
    command -v slurmd >/dev/null || die "slurmd not found (apt-get install slurm-wlm munge)"
    [ "$(id -u)" = 0 ] || die "start needs root (slurmd runs jobs as their user)"
    if alive_pid slurmctld >/dev/null || alive_pid slurmd >/dev/null; then
        die "a cluster from $state already runs (stop it first)"
    fi
    start_munge
    write_conf
    rm -f "$state"/slurmctld.pid "$state"/slurmd.pid
    # -c: a clean start, no jobs kept from an earlier run of this directory.
    slurmctld -c -f "$conf" || { logs_tail; die "slurmctld did not start"; }
    slurmd -f "$conf" -N "$(hostname -s)" || { logs_tail; die "slurmd did not start"; }
    local t0=$SECONDS st=""
    while [ $((SECONDS - t0)) -lt "$wait_s" ]; do
        st=$(sinfo -h -N -o %T 2>/dev/null | head -n1 || true)
        [ "$st" = idle ] && break
        sleep 0.5
    done
    if [ "$st" != idle ]; then
        logs_tail
        die "the node is not idle after ${wait_s}s (sinfo says '${st:-nothing}'); logs in $state; run '$0 stop $state'"
    fi
    echo "export SLURM_CONF=$conf"
}

do_status() {
    local n pid rc=0
    for n in munged slurmctld slurmd; do
        if pid=$(alive_pid $n); then
            echo "$n: running (pid $pid)"
        else
            echo "$n: not running"
            [ $n = munged ] || rc=1
        fi
    done
    if [ -f "$conf" ]; then sinfo 2>&1 || true; fi
    return $rc
}

# Ends the daemons named (TERM to all of them, then waiting up to 10 s for
# each, then KILL), if they still run.
stop_pids() {
    local n pid rc=0 pids=()
    for n in "$@"; do
        if pid=$(alive_pid "$n"); then
            kill -TERM "$pid" 2>/dev/null || true
            pids+=("$n:$pid")
        else
            rm -f "$state/$n.pid"
        fi
    done
    for n in ${pids[@]+"${pids[@]}"}; do
        pid=${n#*:} n=${n%%:*}
        for _ in $(seq 100); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        if kill -0 "$pid" 2>/dev/null; then
            kill -KILL "$pid" 2>/dev/null || true
            sleep 0.2
        fi
        if kill -0 "$pid" 2>/dev/null; then
            echo "local-cluster.sh: $n (pid $pid) did not stop" >&2
            rc=1
        else
            rm -f "$state/$n.pid"
        fi
    done
    return $rc
}

do_stop() {
    local rc=0 ids
    if [ -f "$conf" ] && alive_pid slurmctld >/dev/null; then
        # Cancel this cluster's jobs so that no job step outlives slurmd.
        ids=$(squeue -h -o %i 2>/dev/null | tr '\n' ' ' || true)
        if [ -n "${ids// /}" ]; then
            # shellcheck disable=SC2086
            scancel $ids 2>/dev/null || true
            sleep 1
        fi
    fi
    stop_pids slurmd slurmctld || rc=1
    stop_pids munged || rc=1
    return $rc
}

case $cmd in
start) do_start ;;
status) do_status ;;
stop) do_stop ;;
esac
