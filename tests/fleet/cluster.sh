#!/bin/sh
# cluster.sh - a real Slurm cluster on this host, in a temporary directory and
# without systemd: munged with its own key and socket, one slurmctld, two
# slurmd (n1, n2) described as different machines through config_overrides
# in partition lab, and CLUSTER_WIDE more (m01, m02, ..., default 32) in
# partition wide, each its own `slurmd -N` on a port of its own.
#   . tests/fleet/cluster.sh; cluster_up DIR; ...; cluster_down
# cluster_up exports SLURM_CONF so sinfo, sbatch, squeue and scancel find it;
# cluster_down kills, by PID, every daemon cluster_up started.

cluster_pids=""

cluster_fail() {
	echo "cluster: $*" >&2
	for f in "$CLUSTER_DIR"/log/*.log; do
		[ -f "$f" ] && { echo "--- $f" >&2; tail -n 15 "$f" >&2; }
	done
	return 1
}

# cluster_wait_pidfile FILE: the PID a daemon wrote once it is up
cluster_wait_pidfile() {
	i=0
	while [ $i -lt 600 ]; do
		if [ -s "$1" ]; then
			cat "$1"
			return 0
		fi
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# N distinct free ports on every address (slurmd binds them all), held
# together while chosen so that none is handed out twice
cluster_free_ports() {
	python3 -c 'import socket, sys; s=[socket.socket() for _ in range(int(sys.argv[1]))]; [x.bind(("",0)) for x in s]; print(*[x.getsockname()[1] for x in s])' "$1"
}

# the wide partition's node names: m01 m02 ...
cluster_wide_names() {
	i=1
	while [ $i -le "${CLUSTER_WIDE:-32}" ]; do
		printf 'm%02d ' $i
		i=$((i + 1))
	done
}

cluster_up() {
	CLUSTER_DIR=$1
	d=$CLUSTER_DIR
	wide=$(cluster_wide_names)
	mkdir -p "$d/log" "$d/spool/ctld" "$d/spool/n1" "$d/spool/n2" "$d/munge"
	for n in $wide; do mkdir -p "$d/spool/$n"; done
	chmod 700 "$d/munge"
	mungekey -c -k "$d/munge/munge.key" || return 1
	munged --force --key-file="$d/munge/munge.key" \
		--socket="$d/munge/munge.sock" --pid-file="$d/munge/munged.pid" \
		--log-file="$d/log/munged.log" --seed-file="$d/munge/seed" ||
		{ cluster_fail "munged did not start"; return 1; }
	pid=$(cluster_wait_pidfile "$d/munge/munged.pid") ||
		{ cluster_fail "munged wrote no pid"; return 1; }
	cluster_pids="$cluster_pids $pid"

	set -- $(cluster_free_ports $((3 + ${CLUSTER_WIDE:-32})))
	ctld_port=$1 p1=$2 p2=$3
	shift 3
	wide_ports="$*"
	user=$(id -un)
	cat >"$d/slurm.conf" <<CONF
ClusterName=numalab-test
SlurmctldHost=localhost
SlurmctldPort=$ctld_port
SlurmUser=$user
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$d/munge/munge.sock
CredType=cred/munge
StateSaveLocation=$d/spool/ctld
SlurmdSpoolDir=$d/spool/%n
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd-%n.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmdLogFile=$d/log/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerParameters=sched_interval=1,defer_batch=0
MessageTimeout=5
SlurmdTimeout=30
ReturnToService=2
MinJobAge=60
MpiDefault=none
LaunchParameters=slurmstepd_memlock_all=0
SlurmdParameters=config_overrides
NodeName=n1 NodeHostname=localhost Port=$p1 CPUs=2 RealMemory=1000 Features=small,gen1 State=UNKNOWN
NodeName=n2 NodeHostname=localhost Port=$p2 CPUs=2 RealMemory=2000 Features=big,gen2 State=UNKNOWN
PartitionName=lab Nodes=n1,n2 Default=YES MaxTime=10 State=UP
CONF
	set -- $wide_ports
	for n in $wide; do
		echo "NodeName=$n NodeHostname=localhost Port=$1 CPUs=2 RealMemory=1000 Features=wide State=UNKNOWN" >>"$d/slurm.conf"
		shift
	done
	[ -z "$wide" ] || echo "PartitionName=wide Nodes=$(echo $wide | tr ' ' ',') MaxTime=10 State=UP" >>"$d/slurm.conf"
	export SLURM_CONF="$d/slurm.conf"
	slurmctld -f "$SLURM_CONF" ||
		{ cluster_fail "slurmctld did not start"; return 1; }
	pid=$(cluster_wait_pidfile "$d/slurmctld.pid") ||
		{ cluster_fail "slurmctld wrote no pid"; return 1; }
	cluster_pids="$cluster_pids $pid"
	ctld_pid=$pid
	# every slurmd at once (each forks itself away), then each one's pid:
	# one after the other, 34 take minutes on a busy host
	for n in n1 n2 $wide; do
		slurmd -f "$SLURM_CONF" -N $n &
	done
	wait
	for n in n1 n2 $wide; do
		pid=$(cluster_wait_pidfile "$d/slurmd-$n.pid") ||
			{ cluster_fail "slurmd $n did not start (it wrote no pid)"; return 1; }
		cluster_pids="$cluster_pids $pid"
	done
	# every node registered and idle
	want=$(for n in n1 n2 $wide; do echo $n; done | sort | tr '\n' ' ')
	i=0
	while [ $i -lt 300 ]; do
		# a controller that died (its port taken between choosing and
		# binding it) is said at once, not after every sinfo timed out
		if ! kill -0 "$ctld_pid" 2>/dev/null; then
			cluster_fail "slurmctld stopped: $(tail -n 2 "$d/log/slurmctld.log" 2>/dev/null | tr '\n' ' ')"
			return 1
		fi
		idle=$(sinfo -h -N -t idle -o '%N' 2>/dev/null | sort -u | tr '\n' ' ')
		[ "$idle" = "$want" ] && return 0
		sleep 0.2
		i=$((i + 1))
	done
	cluster_fail "the nodes did not become idle: $(sinfo -N 2>&1)"
}

cluster_down() {
	for pid in $cluster_pids; do
		kill "$pid" 2>/dev/null
	done
	for pid in $cluster_pids; do
		i=0
		while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		kill -9 "$pid" 2>/dev/null
	done
	cluster_pids=""
}
