# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers for test scripts run in the VMs by `scripts/vm run`. Source it:
#
#   . "$(dirname "$0")/lib.sh"
#
# Synchronisation (files in $MROCE_VM_SHARED, shared by all VMs and the host):
#   vm_barrier NAME [SECS]  wait until every VM has reached NAME; a NAME may be
#                           reused (each VM must pass it the same number of
#                           times; call it from the test's main shell, not a
#                           subshell). Fails (and records a FAIL) on timeout
#                           or when a peer VM has already failed.
#   vm_set NAME VALUE       publish VALUE under NAME
#   vm_get NAME [SECS]      print the value published under NAME, waiting for it
#                           (use as v=$(vm_get NAME); a timeout is counted as
#                           a FAIL and returns non-zero)
# Addresses (exist only on the emulated links between the VMs):
#   vm_ip INDEX [LINK]      IPv4 of VM INDEX on link LINK: 10.77.LINK.(INDEX+1)
#   vm_ip6 INDEX [LINK]     IPv6: fd77:0:0:LINK::(INDEX+1) (eth0: fd77::(INDEX+1))
#   vm_peer                 index of the other VM (2-VM runs)
#   vm_veth_ns NS IF ADDR PEERADDR...
#                           a veth pair: IF (with ADDR/24) here, its other
#                           end in network namespace NS (made if missing)
#                           with every PEERADDR/24: a wire to a peer in
#                           the same VM (tests/compliance)
#   vm_net_setup            bring eth0..eth<L-1> up with those addresses
#                           (/24 and /64; IPv6 without DAD)
#   vm_ping ARGS...         ping (iputils if installed, else busybox ping)
#   vm_links_report         print, for each link, its NIC's packet counts and
#                           whether one ping to the peer's address on it is
#                           answered: after a failure, tells a link the
#                           emulator stopped carrying from a transport fault
# Reporting:
#   t_ok NAME / t_fail NAME MSG / t_skip NAME REASON   (they count even when
#                           called in a subshell or pipeline)
#   t_run NAME CMD...       run CMD; ok if it exits 0, else FAIL with its output
#   t_verdicts FILE         a test per "ok NAME: WHAT" / "FAIL NAME: WHY" line
#                           of FILE (a program's verdicts), a skip per
#                           "untested NAME: WHY" line; non-zero when there
#                           are no verdicts
#   t_done                  print "VM<i>: N passed, N failed[, N skipped]",
#                           return non-zero if anything failed
#   t_give_up MSG           record a failed "setup" test, t_done, exit
#   vm_pp_within NAME SECS [BASE]
#                           ok if this VM's side of pair NAME (an
#                           ibv_rc_pingpong) ran its iterations in under SECS
#                           seconds (its own timing, which starts once its QP
#                           is ready to send); SECS is scaled by MROCE_VM_SLOW.
#                           With BASE, an earlier pingpong pair of this run,
#                           SECS is what NAME may take beyond its iterations
#                           at BASE's time per iteration: the emulator's
#                           speed, which varies by run, is not counted
#   vm_ends_in_error NAME PID LOG
#                           ok if background job PID (a verbs program whose
#                           output goes to LOG) ends with a non-zero exit
#                           within 30 s; FAIL (and kill it) if it is still
#                           running or exits 0
# Power (2-VM runs):
#   vm_power_cut            this VM loses power: the host kills its QEMU and
#                           boots it again on the same links; the test script
#                           then starts over with MROCE_VM_BOOT one higher.
#                           Its results so far count; the barriers it passes
#                           after the cut must have names it has not used.
# Client/server pairs (2-VM runs; VM0 serves, VM1 connects):
#   vm_pair2 NAME SECS SERVER CLIENT
#                           run the SERVER command line on VM0 and, once it
#                           listens (RDMA CM or TCP port 18515; at most 15 s),
#                           CLIENT on VM1 (both word-split strings);
#                           ok if both exit 0 within SECS; run again (up
#                           to 3 times) if perftest -R's client connected
#                           before its server listened; logs kept in
#                           $MROCE_VM_OUT/NAME.try<n>.vm<i>.log; returns
#                           this VM's command's status
#   vm_pair_log NAME        the log of this VM's last try of pair NAME
#   vm_pair NAME SECS CMD...
#                           the usual perftest/pingpong shape: CMD on VM0,
#                           CMD followed by VM0's IPv4 address on VM1
#   vm_ucx_perf NAME SECS ENV BOTH CLIENT
#                           ucx_perftest between the VMs (vm_pair2 on port
#                           18515) with the NAME=VALUE words ENV in its
#                           environment: BOTH are options of both ends,
#                           CLIENT the client's test options; on VM1 sets
#                           $ucx_final to the client's "Final:" line (empty
#                           if it printed none)
#   vm_mpi_pair NAME SECS PROG [ARGS...]
#                           Open MPI over UCX, one rank on each VM: VM0 runs
#                           mpirun (output in $MROCE_VM_OUT/NAME.vm0.log,
#                           every exported UCX_* variable passed to the
#                           ranks) and returns its status; VM1 serves
#                           mpirun's remote shell (tests/vm/mpi-rsh, as the
#                           VMs have no ssh) until it ends, setting
#                           $mpi_served to the commands it ran
# Devices:
#   vm_rdma_up TYPE         eth0.. addresses, ib_uverbs, device TYPE0 on eth0;
#                           sets $dev and $gid (its IPv4 RoCE v2 GID index);
#                           gives up the test on failure
#   vm_pp_args              ibv_rc_pingpong's arguments for $dev and $gid,
#                           4 KiB messages (word-split them)
#   vm_gid_index DEV [4|6|mp]
#                           print the index of DEV's RoCE v2 GID holding this
#                           VM's eth0 IPv4 (default) or IPv6 address, or its
#                           multipath address, waiting up to 10 s for it to
#                           appear; fails if none
#   vm_gid_find DEV GID     the same for any GID (sysfs's form: eight groups
#                           of four hex digits)
# Multipath (2-VM runs; every link is a plane between the two VMs):
#   vm_mp_addr INDEX        the multipath address of VM INDEX: 10.88.0.(INDEX+1)
#   vm_multipath_setup      put this VM's multipath address on a dummy netdev
#                           dum0, hash ECMP on L4 ports, no reverse-path filter
#   vm_multipath_route N    route the peer's multipath address over links
#                           0..N-1 (one ECMP route), replacing the last one
#   vm_multipath_route_args N
#                           the arguments of that "ip route replace"
#   vm_counters DEV [BEFORE]
#                           DEV's non-zero hardware counters as NAME=VALUE
#                           words, minus the NAME=VALUE words of BEFORE
#   vm_counter DEV NAME     the value of DEV's hardware counter NAME (0 if none)
#   vm_iperf3_result JSON   "GBPS RESENT" of an iperf3 -J client run: what the
#                           receiver got and what the sender resent ("nan -"
#                           if it has no result)
#   vm_perftest_gbps LOG    the Gb/s of a perftest bandwidth client's 64 KiB
#                           line (its average over the run, all its QPs;
#                           "nan" if it printed none)
#   wait_for SECS CMD...    poll CMD every 0.1 s until it succeeds; fail
#                           after SECS
#   vm_wait_listening [PID] wait up to 15 s (while PID lives) for a server:
#                           an RDMA CM ID in LISTEN or TCP port 18515
# Goodput (2-VM runs):
#   vm_write_bw DEV SECS LOG
#                           ib_write_bw of 64 KiB messages over DEV for SECS
#                           seconds (at least 5), VM0 serving, VM1 driving;
#                           perftest's output goes to LOG; on VM1 sets
#                           $bw_gbps to the goodput in Gb/s over the window
#                           perftest measured, or "nan" when it printed none;
#                           non-zero if perftest failed (call it from the
#                           test's main shell: it passes barriers)
#   vm_netem_drops [DEV]    packets the root qdisc (netem) of DEV (eth0) dropped
#   vm_tail_drop_in RATE LIMIT
#                           make this VM's way in a port of RATE whose LIMIT
#                           (bytes) queue drops its tail and never marks ECN:
#                           eth0's ingress redirected to ifb0, a token bucket
#   vm_red_in RATE          the same port with a RED queue that marks ECN
#                           (drops what is not ECN-capable) from 3 ms of
#                           RATE queued, and drops its tail at 48 ms
#   vm_port_bypass ADDR     IPv4 traffic to local address ADDR goes around
#                           that port
#   vm_red_out RATE         this VM's way out (eth0) shaped as vm_red_in's
#   vm_tail_drop_counts     "SENT DROPPED": that port's packets so far
# Timeouts default to $MROCE_VM_WAIT (120 s).

: "${MROCE_VM_INDEX:?tests/vm/lib.sh: run this under scripts/vm run}"
: "${MROCE_VM_COUNT:=1}" "${MROCE_VM_LINKS:=1}"
: "${MROCE_VM_SHARED:?tests/vm/lib.sh: MROCE_VM_SHARED is not set}"
: "${MROCE_VM_WAIT:=120}"
_vm_lib_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# Results are counted in a file, so t_ok/t_fail also count from subshells
# ( ... | while read ...; do t_ok ...; done, background jobs, $(...) ).
_t_results=$(mktemp "${TMPDIR:-/tmp}/mroce-t.XXXXXX")
# What the boots before a power cut counted (vm_power_cut).
_t_carry=${MROCE_VM_OUT:-/nonexistent}/vm${MROCE_VM_INDEX:-0}.results
if [[ ${MROCE_VM_BOOT:-1} -gt 1 && -r $_t_carry ]]; then
	cat "$_t_carry" >"$_t_results"
fi
declare -A _vm_gen=()

t_ok() {
	echo ok >>"$_t_results"
	echo "ok $1"
}

t_fail() {
	echo fail >>"$_t_results"
	echo "FAIL $1: ${2:-failed}"
}

t_skip() {
	echo skip >>"$_t_results"
	echo "skip $1: ${2:-skipped}"
}

t_run() {
	local name=$1 out rc
	shift
	out=$("$@" 2>&1)
	rc=$?
	if [[ $rc -eq 0 ]]; then
		t_ok "$name"
	else
		t_fail "$name" "exit status $rc: $*"
		[[ -z $out ]] || printf '%s\n' "$out" | tail -n 20 | sed 's/^/    /'
	fi
	return "$rc"
}

t_verdicts() {
	local verdict name rest
	while read -r verdict name rest; do
		case $verdict in
		ok) t_ok "$name ${rest%% (*}" ;;
		FAIL) t_fail "${name%:}" "$rest" ;;
		untested) t_skip "${name%:}" "untested: $rest" ;;
		esac
	done <"$1"
	grep -qE '^(ok|FAIL) ' "$1"
}

t_done() {
	local pass fail skip line
	# grep -c exits 1 when it counts 0: not an error here.
	pass=$(grep -cx ok "$_t_results" || true)
	fail=$(grep -cx fail "$_t_results" || true)
	skip=$(grep -cx skip "$_t_results" || true)
	line="VM$MROCE_VM_INDEX: $pass passed, $fail failed"
	[[ $skip -eq 0 ]] || line+=", $skip skipped"
	echo "$line"
	[[ $fail -eq 0 ]]
}

t_give_up() {
	t_fail setup "$1"
	t_done
	exit
}

# Is a server listening: an RDMA CM ID in LISTEN, or perftest's and the
# pingpongs' TCP port?
_pair_listening() {
	rdma resource show cm_id 2>/dev/null | grep -q LISTEN ||
		ss -Hltn 2>/dev/null | grep -q ':18515 '
}

wait_for() {
	local t=$(($1 * 10))
	shift
	while ! "$@"; do
		t=$((t - 1))
		[ "$t" -gt 0 ] || return 1
		sleep 0.1
	done
}

vm_wait_listening() {
	local i
	for ((i = 0; i < 150; i++)); do
		_pair_listening && return 0
		[[ -z ${1:-} ]] || kill -0 "$1" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# perftest -R connects its test QPs right after its handshake, not knowing
# whether the server listens for them yet: a client that wins that race is
# rejected (REJ "invalid service ID"; for UD a SIDR "unreachable") while
# the server waits on.  Such a pair runs again, up to three times in all,
# after a second's pause; the log says so.
_pair_raced() {
	grep -qE 'RDMA_CM_EVENT_(REJECTED; error: 8\.|UNREACHABLE)' "$1"
}

vm_pair2() {
	local name=$1 secs=$2 server=$3 client=$4 out=/tmp/pair.out rc pid try raced
	for try in 1 2 3; do
		vm_barrier "start-$name" || return
		raced=$MROCE_VM_SHARED/val.raced-$name-$try
		if [[ $MROCE_VM_INDEX -eq 0 ]]; then
			# shellcheck disable=SC2086 # command lines are word-split on purpose
			timeout "$secs" $server >"$out" 2>&1 &
			pid=$!
			# A client that comes too early is rejected (RDMA CM) or refused.
			vm_wait_listening "$pid"
			vm_set "listening-$name-$try" 1
			while kill -0 "$pid" 2>/dev/null && [[ ! -e $raced ]]; do
				sleep 0.2
			done
			[[ ! -e $raced ]] || kill "$pid" 2>/dev/null
			wait "$pid"
			rc=$?
		else
			vm_get "listening-$name-$try" >/dev/null
			sleep 0.5
			# shellcheck disable=SC2086
			timeout "$secs" $client >"$out" 2>&1
			rc=$?
			if [[ $rc -ne 0 && $try -lt 3 ]] && _pair_raced "$out"; then
				vm_set "raced-$name-$try" 1
			fi
		fi
		cp "$out" "$MROCE_VM_OUT/$name.try$try.vm$MROCE_VM_INDEX.log" 2>/dev/null
		vm_barrier "end-$name"
		[[ -e $raced ]] || break
		echo "note $name: the client connected before the server listened; again"
		sleep 1
	done
	if [[ $rc -eq 0 ]]; then
		t_ok "$name $(grep -E '^ *[0-9]+ +[0-9]+ ' "$out" | tail -n 1 | tr -s ' ')"
	else
		t_fail "$name" "exit $rc: $(tail -n 5 "$out" | tr '\n' ' ')"
	fi
	return "$rc"
}

vm_pair_log() {
	local f last=
	for f in "$MROCE_VM_OUT/$1".try[1-9].vm"$MROCE_VM_INDEX".log; do
		[[ -e $f ]] && last=$f
	done
	echo "${last:-/dev/null}"
}

vm_pair() {
	local name=$1 secs=$2
	shift 2
	vm_pair2 "$name" "$secs" "$*" "$* $(vm_ip 0)"
}

# shellcheck disable=SC2034 # ucx_final is the result, read by the caller
vm_ucx_perf() {
	local name=$1 secs=$2 env=$3 both=$4 client=$5
	ucx_final=
	vm_pair2 "$name" "$secs" "env $env ucx_perftest -p 18515 $both" \
		"env $env ucx_perftest -p 18515 $both $(vm_ip 0) $client"
	[[ $MROCE_VM_INDEX -eq 1 ]] || return 0
	ucx_final=$(grep '^Final:' "$(vm_pair_log "$name")" | tail -n 1 | tr -s ' ')
}

vm_mpi_pair() {
	local name=$1 secs=$2 flag f base end v x=() pids=()
	shift 2
	flag=$MROCE_VM_SHARED/val.$name-done
	mpi_served=0
	# Requests an earlier mpirun left (it timed out) are no one's now.
	[[ $MROCE_VM_INDEX -ne 0 ]] || rm -f "$MROCE_VM_SHARED"/rsh.*
	vm_barrier "mpi-$name" || return
	if [[ $MROCE_VM_INDEX -eq 0 ]]; then
		for v in $(compgen -e | grep '^UCX_'); do
			x+=(-x "$v")
		done
		timeout -k 30 "$secs" mpirun --allow-run-as-root -n 2 \
			--host "$(vm_ip 0),$(vm_ip 1)" \
			--mca plm_rsh_agent "$_vm_lib_dir/mpi-rsh" \
			--mca oob_tcp_if_include eth0 \
			--mca pml ucx --mca osc ucx --mca btl self "${x[@]}" \
			"$@" >"$MROCE_VM_OUT/$name.vm0.log" 2>&1
		v=$?
		vm_set "$name-done" 1
		return "$v"
	fi
	# Each request is a command line to run here, as ssh's remote shell
	# would, for no longer than mpirun may run; its output and status go
	# back to mpi-rsh.
	end=$((SECONDS + secs + 60))
	while [[ ! -e $flag ]] && ((SECONDS < end)); do
		for f in "$MROCE_VM_SHARED/rsh.$(vm_ip 1)".*.cmd; do
			[[ -e $f ]] || continue
			base=${f%.cmd}
			mv "$f" "$base.run" || continue
			mpi_served=$((mpi_served + 1))
			(
				timeout -k 10 "$((secs + 30))" bash -c "$(cat "$base.run")" \
					>"$base.out" 2>&1
				echo $? >"$base.rc.tmp"
				mv "$base.rc.tmp" "$base.rc"
			) &
			pids+=($!)
		done
		sleep 0.2
	done
	[[ ${#pids[@]} -eq 0 ]] || wait "${pids[@]}"
}

vm_rdma_up() {
	dev=${1}0
	vm_net_setup || t_give_up "network setup"
	modprobe ib_uverbs
	rdma link add "$dev" type "$1" netdev eth0 || t_give_up "rdma link add $dev"
	gid=$(vm_gid_index "$dev") || t_give_up "no IPv4 RoCE v2 GID on $dev"
}

vm_gid_index() {
	local want
	if [[ ${2:-4} == 4 ]]; then
		want=$(printf '0000:0000:0000:0000:0000:ffff:0a4d:%04x' $((MROCE_VM_INDEX + 1)))
	elif [[ $2 == mp ]]; then
		want=$(printf '0000:0000:0000:0000:0000:ffff:0a58:%04x' $((MROCE_VM_INDEX + 1)))
	else
		want=$(printf 'fd77:0000:0000:0000:0000:0000:0000:%04x' $((MROCE_VM_INDEX + 1)))
	fi
	vm_gid_find "$1" "$want"
}

vm_gid_find() {
	local dev=$1 want=$2 f g i
	for ((i = 0; i < 100; i++)); do
		for f in /sys/class/infiniband/"$dev"/ports/1/gids/*; do
			# (read, not $(cat): a spawn per entry costs seconds under TCG)
			read -r g <"$f" 2>/dev/null || continue
			[[ $g == "$want" ]] || continue
			grep -qs 'RoCE v2' "/sys/class/infiniband/$dev/ports/1/gid_attrs/types/${f##*/}" || continue
			echo "${f##*/}"
			return 0
		done
		sleep 0.1
	done
	return 1
}

vm_counters() {
	local f name val old
	declare -A before=()
	for old in ${2:-}; do
		before[${old%%=*}]=${old#*=}
	done
	for f in /sys/class/infiniband/"$1"/ports/1/hw_counters/*; do
		[[ -r $f ]] || continue
		name=${f##*/}
		read -r val <"$f" || continue
		val=$((val - ${before[$name]:-0}))
		[[ $val -eq 0 ]] || printf '%s=%s ' "$name" "$val"
	done
}

vm_iperf3_result() {
	python3 -c '
import json, sys
try:
    e = json.load(open(sys.argv[1]))["end"]
    print("%.6f %d" % (e["sum_received"]["bits_per_second"] / 1e9,
                       e["sum_sent"].get("retransmits", 0)))
except Exception:
    print("nan -")' "$1"
}

vm_perftest_gbps() {
	awk '$1 == 65536 && NF >= 5 { v = sprintf("%.6f", $4) }
		END { print (v == "" ? "nan" : v) }' "$1"
}

vm_counter() {
	local val=0

	read -r val <"/sys/class/infiniband/$1/ports/1/hw_counters/$2" 2>/dev/null
	echo "${val:-0}"
}

# shellcheck disable=SC2034 # bw_gbps is the result, read by the caller
vm_write_bw() {
	local dev=$1 secs=$2 log=$3 g rc
	bw_gbps=nan
	g=$(vm_gid_index "$dev") || return 1
	local bw=(ib_write_bw -d "$dev" -x "$g" -F --report_gbits -s 65536 -D "$secs")
	vm_barrier "bw-go" 300 || return 1
	if [[ $MROCE_VM_INDEX -eq 0 ]]; then
		timeout $((secs + 60)) "${bw[@]}" >"$log" 2>&1
		rc=$?
	else
		sleep 1
		timeout $((secs + 60)) "${bw[@]}" "$(vm_ip 0)" >"$log" 2>&1
		rc=$?
		# Iterations over the run less a 2-s margin at each end, which
		# is what perftest's -D counts (its own average, which agrees,
		# sometimes reads 0); a run that printed no result is "nan",
		# never 0.
		bw_gbps=$(awk -v secs="$((secs - 4))" '$1 == 65536 && NF >= 5 {
			v = sprintf("%.6f", $2 * 65536 * 8 / secs / 1e9) }
			END { print (v == "" ? "nan" : v) }' "$log")
	fi
	vm_barrier "bw-done" 300 || return 1
	return "$rc"
}

vm_netem_drops() {
	tc -s qdisc show dev "${1:-eth0}" | grep -oE 'dropped [0-9]+' | head -n 1 | cut -d' ' -f2
}

# eth0's way in through ifb0 (once); ifb0's root qdisc goes
_vm_port_in() {
	if [[ ! -e /sys/class/net/ifb0 ]]; then
		modprobe ifb numifbs=1 &&
			ip link set dev ifb0 up &&
			tc qdisc add dev eth0 handle ffff: ingress &&
			tc filter add dev eth0 parent ffff: protocol all matchall \
				action mirred egress redirect dev ifb0 || return 1
	fi
	tc qdisc del dev ifb0 root 2>/dev/null
	return 0
}

vm_tail_drop_in() {
	_vm_port_in && tc qdisc add dev ifb0 root tbf rate "$1" burst 32kb limit "$2"
}

# _vm_red DEV RATE: DEV's root a RATE token bucket feeding a RED queue
_vm_red() {
	local kbit min
	kbit=$(tc_kbit "$2") || return 1
	# kbit/8 bytes per ms: 3 ms of the rate, never under two packets
	min=$((kbit * 3 / 8 > 3000 ? kbit * 3 / 8 : 3000))
	tc qdisc add dev "$1" root handle 1: tbf rate "$2" burst 32kb limit 1mb &&
		tc qdisc add dev "$1" parent 1:1 handle 10: red limit $((min * 16)) \
			min "$min" max $((min * 3)) avpkt 1500 burst $((min * 5 / 1500 / 3 + 1)) \
			probability 0.2 bandwidth "$2" ecn
}

vm_red_in() {
	_vm_port_in && _vm_red ifb0 "$1"
}

vm_port_bypass() {
	# (the port's redirect has the kernel's automatic priority, after 1)
	_vm_port_in &&
		tc filter add dev eth0 parent ffff: prio 1 protocol ip u32 \
			match ip dst "$1/32" action pass
}

vm_red_out() {
	tc qdisc del dev eth0 root 2>/dev/null
	_vm_red eth0 "$1"
}

# RATE ("80mbit", "1gbit", "500kbit") in kbit/s
tc_kbit() {
	local n=${1%bit} mul=1
	case $n in
	*k) n=${n%k} ;;
	*m) n=${n%m} mul=1000 ;;
	*g) n=${n%g} mul=1000000 ;;
	*) echo "tc_kbit: $1 is not NUMBER[kmg]bit" >&2; return 1 ;;
	esac
	[[ $n =~ ^[0-9]+$ ]] || { echo "tc_kbit: $1 is not NUMBER[kmg]bit" >&2; return 1; }
	echo $((n * mul))
}

vm_tail_drop_counts() {
	tc -s qdisc show dev ifb0 | awk '/Sent/ { s = $4; d = $7; sub(",", "", d) }
		END { print s + 0, d + 0 }'
}

vm_peer() {
	echo $((1 - MROCE_VM_INDEX))
}

vm_ip() {
	echo "10.77.${2:-0}.$(($1 + 1))"
}

vm_mp_addr() {
	echo "10.88.0.$(($1 + 1))"
}

vm_multipath_setup() {
	local k
	sysctl -qw net.ipv4.fib_multipath_hash_policy=1 || return 1
	for k in all default $(cd /sys/class/net && echo eth*); do
		sysctl -qw "net.ipv4.conf.$k.rp_filter=0" || return 1
	done
	ip link add dum0 type dummy && ip link set dum0 up &&
		ip addr add "$(vm_mp_addr "$MROCE_VM_INDEX")/32" dev dum0
}

vm_multipath_route_args() {
	local k peer
	peer=$(vm_peer)
	echo -n "$(vm_mp_addr "$peer")/32"
	for ((k = 0; k < $1; k++)); do
		echo -n " nexthop via $(vm_ip "$peer" "$k") dev eth$k"
	done
	echo
}

vm_multipath_route() {
	# shellcheck disable=SC2046 # words of an ip command, split on purpose
	ip route replace $(vm_multipath_route_args "$1")
}

vm_ip6() {
	echo "fd77:0:0:${2:-0}::$(($1 + 1))"
}

vm_net_setup() {
	local k dev
	for ((k = 0; k < MROCE_VM_LINKS; k++)); do
		dev=eth$k
		if ! { ip link set dev "$dev" up &&
			ip addr add "$(vm_ip "$MROCE_VM_INDEX" "$k")/24" dev "$dev" &&
			ip -6 addr add "$(vm_ip6 "$MROCE_VM_INDEX" "$k")/64" dev "$dev" nodad; }; then
			echo "vm_net_setup: cannot configure $dev" >&2
			return 1
		fi
	done
}

vm_veth_ns() {
	local ns=$1 dev=$2 addr=$3 a
	shift 3
	[[ -e /run/netns/$ns ]] || ip netns add "$ns" || return
	ip -n "$ns" link set lo up
	ip link add "$dev" type veth peer name "$dev-p" || return
	ip link set "$dev-p" netns "$ns" || return
	ip addr add "$addr/24" dev "$dev"
	ip link set "$dev" up
	for a in "$@"; do
		ip -n "$ns" addr add "$a/24" dev "$dev-p"
	done
	ip -n "$ns" link set "$dev-p" up
}

# ping with iputils if installed, else busybox (a dependency of the rig).
vm_ping() {
	if command -v ping >/dev/null; then
		ping "$@"
	else
		busybox ping "$@"
	fi
}

vm_links_report() {
	local k d st ans
	for ((k = 0; k < MROCE_VM_LINKS; k++)); do
		d=/sys/class/net/eth$k/statistics
		st="tx $(cat $d/tx_packets) rx $(cat $d/rx_packets) packets"
		if vm_ping -c 1 -W 2 "$(vm_ip "$(vm_peer)" "$k")" >/dev/null 2>&1; then
			ans="the peer answers a ping"
		else
			ans="NO answer to a ping from $(vm_ip "$(vm_peer)" "$k")"
		fi
		echo "    link $k (eth$k): $st; $(tc qdisc show dev eth$k | head -n 1); $ans"
	done
}

vm_pp_args() {
	echo "-d $dev -g $gid -s 4096"
}

# pp_timing NAME: "ITERS SECS USEC_PER_ITER" of this VM's side of pair NAME
pp_timing() {
	cat "$MROCE_VM_OUT/$1".try*.vm"$MROCE_VM_INDEX".log 2>/dev/null |
		sed -nE 's/^([0-9]+) iters in ([0-9.]+) seconds = ([0-9.]+) usec\/iter$/\1 \2 \3/p' |
		tail -n 1
}

vm_pp_within() {
	local name=$1 limit=$(($2 * ${MROCE_VM_SLOW:-1})) base=${3:-} iters secs
	local what="iterations within $limit s" bper=0
	read -r iters secs _ <<<"$(pp_timing "$name")"
	if [[ -n $base ]]; then
		read -r _ _ bper <<<"$(pp_timing "$base")"
		what="iterations within $limit s beyond $base's ${bper:-?} us each"
	fi
	if [[ -z $secs || -z $bper ]]; then
		t_fail "$name: $what" "no timing in its log or $base's"
	elif awk -v s="$secs" -v l="$limit" -v n="$iters" -v b="$bper" \
		'BEGIN { exit !(s - n * b / 1e6 < l) }'; then
		t_ok "$name: $what ($secs s)"
	else
		t_fail "$name: $what" "$secs s"
	fi
}

vm_ends_in_error() {
	local name=$1 pid=$2 log=$3 end=$((SECONDS + 30))
	while kill -0 "$pid" 2>/dev/null && [[ $SECONDS -lt $end ]]; do
		sleep 0.2
	done
	if kill -0 "$pid" 2>/dev/null; then
		t_fail "$name" "still running after 30 s"
		kill "$pid"
	elif wait "$pid"; then
		t_fail "$name" "it exited 0"
	else
		t_ok "$name ($(grep -m1 -oE 'Failed status [^ ]+ [^ ]+' "$log"))"
	fi
}

vm_power_cut() {
	if ! { cp "$_t_results" "$_t_carry" &&
		dmesg >"$MROCE_VM_OUT/vm$MROCE_VM_INDEX.dmesg.boot${MROCE_VM_BOOT:-1}" 2>&1 &&
		sync && : >"$MROCE_VM_OUT/vm$MROCE_VM_INDEX.power-cut"; }; then
		t_give_up "cannot ask the host for a power cut"
	fi
	# scripts/vm kills this VM within a second.
	while :; do
		sleep 60
	done
}

# Non-zero (with a message) if another VM has already failed.
_vm_peer_failed() {
	local f
	for f in "$MROCE_VM_SHARED"/.abort.vm*; do
		[[ -e $f && $f != */.abort.vm$MROCE_VM_INDEX ]] || continue
		echo "${f##*/.abort.}"
		return 0
	done
	return 1
}

# _vm_wait DESC SECS TEST...: poll until TEST succeeds.
_vm_wait() {
	local desc=$1 secs=$2 end who
	shift 2
	end=$((SECONDS + secs))
	until "$@"; do
		# To stderr: vm_get runs inside $(...).
		if who=$(_vm_peer_failed); then
			t_fail "$desc" "$who failed" >&2
			return 1
		fi
		if ((SECONDS >= end)); then
			t_fail "$desc" "timed out after ${secs}s" >&2
			return 1
		fi
		sleep 0.1
	done
}

_vm_all_at() {
	local i
	for ((i = 0; i < MROCE_VM_COUNT; i++)); do
		[[ -e $MROCE_VM_SHARED/barrier.$1.$i ]] || return 1
	done
}

vm_barrier() {
	local name=$1 secs=${2:-$MROCE_VM_WAIT} gen
	[[ $name =~ ^[A-Za-z0-9_.-]+$ ]] || { t_fail "barrier $name" "bad name"; return 1; }
	gen=$((${_vm_gen[$name]:-0} + 1))
	_vm_gen[$name]=$gen
	: >"$MROCE_VM_SHARED/barrier.$name.$gen.$MROCE_VM_INDEX"
	_vm_wait "barrier $name" "$secs" _vm_all_at "$name.$gen"
}

vm_set() {
	local name=$1 tmp
	[[ $name =~ ^[A-Za-z0-9_.-]+$ ]] || { echo "vm_set: bad name '$name'" >&2; return 1; }
	tmp=$MROCE_VM_SHARED/.val.$name.$MROCE_VM_INDEX.$$
	printf '%s\n' "$2" >"$tmp" && mv -f "$tmp" "$MROCE_VM_SHARED/val.$name"
}

vm_get() {
	local name=$1 secs=${2:-$MROCE_VM_WAIT}
	_vm_wait "get $name" "$secs" test -e "$MROCE_VM_SHARED/val.$name" || return 1
	cat "$MROCE_VM_SHARED/val.$name"
}
