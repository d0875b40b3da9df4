#!/usr/bin/env bash
# A one-node Slurm on this machine, for trying deploy/slurm/ (not part of CI):
# Debian's munge, slurmctld and slurmd (Slurm 22.05 on bookworm), a slurm.conf for one node
# named localhost with this machine's CPUs (2 here), partition `debug`, CPU-level scheduling
# (select/cons_tres, CR_CPU) and task/affinity binding; and, for sacct, slurmdbd on Debian's
# MariaDB (10.11, socket only: --skip-networking). Idempotent: installs what is missing,
# rewrites /etc/slurm/slurm.conf and slurmdbd.conf only when they differ (restarting the daemons
# then), starts what is not running, resumes the node if it is down, and prints nothing else
# when all is up.
# Usage: deploy/slurm/local-cluster.sh [--stop | --status]
# Needs root (or sudo). Logs: /var/log/slurm/ (also jobcomp.log, a line per finished job).
set -euo pipefail
prog="local-cluster.sh"
die() { echo "$prog: $*" >&2; exit 2; }
say() { echo "$prog: $*" >&2; }
as_root() { if [[ "$(id -u)" -eq 0 ]]; then "$@"; else sudo "$@"; fi; }

mode=start
case "${1:-}" in
    "") ;;
    --stop) mode=stop ;;
    --status) mode=status ;;
    -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) die "unknown option $1 (usage: local-cluster.sh [--stop | --status])" ;;
esac
[[ $# -le 1 ]] || die "one option at most (usage: local-cluster.sh [--stop | --status])"

conf=/etc/slurm/slurm.conf
marker="# Written by md-shootout deploy/slurm/local-cluster.sh"
munge_pid=/run/munge/munged.pid
ctld_pid=/run/slurmctld.pid
slurmd_pid=/run/slurmd.pid
dbd_conf=/etc/slurm/slurmdbd.conf
dbd_pid=/run/slurmdbd.pid
db_pid=/run/mysqld/mysqld.pid

# running PIDFILE: the daemon whose id PIDFILE holds is alive.
running() { [[ -s "$1" ]] && as_root kill -0 "$(cat "$1")" 2>/dev/null; }
# stop_daemon NAME PIDFILE: ends that one process by its id and waits for it to go.
stop_daemon() {
    running "$2" || return 0
    local pid; pid="$(cat "$2")"
    say "stopping $1 (pid $pid)"
    as_root kill "$pid"
    for _ in $(seq 50); do as_root kill -0 "$pid" 2>/dev/null || return 0; sleep 0.2; done
    die "$1 (pid $pid) did not stop"
}

if [[ $mode == stop ]]; then
    stop_daemon slurmd "$slurmd_pid"
    stop_daemon slurmctld "$ctld_pid"
    stop_daemon slurmdbd "$dbd_pid"
    stop_daemon mariadbd "$db_pid"
    stop_daemon munged "$munge_pid"
    exit 0
fi
if [[ $mode == status ]]; then
    for d in munged:$munge_pid mariadbd:$db_pid slurmdbd:$dbd_pid slurmctld:$ctld_pid slurmd:$slurmd_pid; do
        if running "${d#*:}"; then echo "${d%%:*}: running (pid $(cat "${d#*:}"))"; else echo "${d%%:*}: stopped"; fi
    done
    running "$ctld_pid" && sinfo
    exit 0
fi

# --- packages (Debian bookworm: munge 0.5.15, slurm-wlm 22.05.8) ----------------------------
apt_install() {
    command -v "$1" >/dev/null 2>&1 && return 0
    say "installing $2 (apt-get)"
    if ! as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$2" >/dev/null 2>&1; then
        as_root apt-get update -q >/dev/null
        as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$2" >/dev/null
    fi
}
apt_install munged munge
apt_install slurmctld slurmctld
apt_install slurmd slurmd
apt_install sbatch slurm-client
apt_install slurmdbd slurmdbd
apt_install mariadbd mariadb-server

# --- configuration ------------------------------------------------------------------------
cpus="$(nproc --all)"
text="$marker; rerun it to restore.
ClusterName=shootout-local
SlurmctldHost=localhost
SlurmUser=slurm
AuthType=auth/munge
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=$ctld_pid
SlurmdPidFile=$slurmd_pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/affinity
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
ReturnToService=2
MpiDefault=none
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
JobAcctGatherType=jobacct_gather/linux
JobCompType=jobcomp/filetxt
JobCompLoc=/var/log/slurm/jobcomp.log
NodeName=localhost CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP"
# write_conf PATH TEXT MODE OWNER: PATH holds TEXT; refuses to replace a file not written here.
write_conf() {
    local path="$1" body="$2" mode="$3" owner="$4"
    if [[ -f $path ]] && [[ "$(as_root cat "$path")" == "$body" ]]; then return 1; fi
    if [[ -f $path ]] && ! as_root grep -qF "$marker" "$path"; then
        die "$path exists and was not written by this script: move it away first"
    fi
    as_root mkdir -p "$(dirname "$path")"
    printf '%s\n' "$body" | as_root tee "$path.tmp" >/dev/null
    as_root chmod "$mode" "$path.tmp"
    as_root chown "$owner" "$path.tmp"
    as_root mv "$path.tmp" "$path"
    say "wrote $path"
}
# The database is reached over MariaDB's socket only, as its unix user `slurm`.
dbd_text="$marker; rerun it to restore.
AuthType=auth/munge
DbdHost=localhost
SlurmUser=slurm
PidFile=$dbd_pid
LogFile=/var/log/slurm/slurmdbd.log
StorageType=accounting_storage/mysql
StorageHost=localhost
StorageUser=slurm
StorageLoc=slurm_acct_db"
changed=0
if write_conf "$dbd_conf" "$dbd_text" 600 slurm:slurm; then changed=1; fi
if write_conf "$conf" "$text" 644 root:root; then changed=1; fi
as_root install -d -o slurm -g slurm /var/spool/slurmctld /var/log/slurm
as_root install -d /var/spool/slurmd
as_root install -d -o munge -g munge -m 0755 /run/munge
as_root install -d -o munge -g munge -m 0700 /var/lib/munge /var/log/munge
[[ -s /etc/munge/munge.key ]] || { say "creating /etc/munge/munge.key"; as_root mungekey --create; as_root chown munge:munge /etc/munge/munge.key; }

if [[ $changed -eq 1 ]]; then
    stop_daemon slurmd "$slurmd_pid"
    stop_daemon slurmctld "$ctld_pid"
    stop_daemon slurmdbd "$dbd_pid"
fi

# --- daemons ------------------------------------------------------------------------------
if ! running "$munge_pid"; then
    say "starting munged"
    as_root runuser -u munge -- /usr/sbin/munged
fi
munge -n | unmunge >/dev/null || die "munge does not work (see /var/log/munge/munged.log)"
if ! running "$db_pid"; then
    say "starting mariadbd (socket only)"
    as_root install -d -o mysql -g mysql /run/mysqld /var/log/mysql
    as_root setsid runuser -u mysql -- /usr/sbin/mariadbd --skip-networking --pid-file="$db_pid" \
        </dev/null >>/var/log/mysql/mariadbd.log 2>&1 &
    for _ in $(seq 100); do as_root mariadb -e 'select 1' >/dev/null 2>&1 && break; sleep 0.2; done
fi
# unix_socket authentication: the unix user slurm is the database user slurm, no password.
as_root mariadb -e "CREATE USER IF NOT EXISTS 'slurm'@'localhost' IDENTIFIED VIA unix_socket;
    GRANT ALL ON slurm_acct_db.* TO 'slurm'@'localhost';" \
    || die "mariadb does not answer (see /var/log/mysql/mariadbd.log)"
if ! running "$dbd_pid"; then
    say "starting slurmdbd"
    as_root /usr/sbin/slurmdbd
    for _ in $(seq 50); do sacctmgr -n list cluster >/dev/null 2>&1 && break; sleep 0.2; done
fi
if ! running "$ctld_pid"; then
    say "starting slurmctld"
    as_root /usr/sbin/slurmctld
fi
if ! running "$slurmd_pid"; then
    say "starting slurmd"
    as_root /usr/sbin/slurmd -N localhost
fi

# --- the node up --------------------------------------------------------------------------
state=""
for _ in $(seq 60); do
    state="$(sinfo -h -n localhost -o %T 2>/dev/null || true)"
    case "$state" in
        idle|mixed|allocated|completing) break ;;
        down*|drain*|*fail*) as_root scontrol update nodename=localhost state=resume 2>/dev/null || true ;;
    esac
    sleep 0.5
done
case "$state" in
    idle|mixed|allocated|completing) ;;
    *) die "node localhost is '${state:-unknown}' (see /var/log/slurm/slurmctld.log and slurmd.log)" ;;
esac
if [[ $changed -eq 1 ]]; then sinfo; fi
