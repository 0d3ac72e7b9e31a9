#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# make install / make uninstall for real, in two VMs booted without
# --module: the install goes into the overlays on the guest's read-only
# root (/lib/modules/<kver>, /opt, /etc, /var/lib), and every verbs program
# then runs with a clean environment (no LD_LIBRARY_PATH, no rdma-env).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/lib.sh"

kver=$(uname -r)
clean=(env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root)
# uses_libverbs PATH: ib_write_bw's libibverbs.so.1 resolves to PATH
uses_libverbs() {
	[ "$("${clean[@]}" ldd "$(command -v ib_write_bw)" |
		awk '$1 == "libibverbs.so.1" { print $3 }')" = "$1" ]
}

vm_net_setup || t_give_up "network setup"
t_run "no mroce module before the install" sh -c '! modinfo -n mroce'
t_run "make install" make -s -C "$top" install || t_give_up "make install failed"
t_run "modprobe finds updates/mroce.ko" sh -c "[ \"\$(modinfo -n mroce)\" = /lib/modules/$kver/updates/mroce.ko ]"
t_run "ib_write_bw links /opt/mroce's libibverbs" uses_libverbs /opt/mroce/lib/libibverbs.so.1
t_run "rdma link add, clean environment" "${clean[@]}" rdma link add mroce0 type mroce netdev eth0
t_run "ibv_devices lists mroce0, clean environment" sh -c "${clean[*]} ibv_devices | grep -qw mroce0"
t_run "ibv_devinfo opens mroce0, clean environment" sh -c "${clean[*]} ibv_devinfo -d mroce0 | grep -q 'state:.*PORT_ACTIVE'"
gid=$(vm_gid_index mroce0) || t_give_up "no IPv4 RoCE v2 GID on mroce0"
bwcmd="${clean[*]} ib_write_bw -d mroce0 -x $gid -F -s 65536 -n 300"
vm_pair2 installed-ib_write_bw 180 "$bwcmd" "$bwcmd $(vm_ip 0)"
pp="${clean[*]} ibv_rc_pingpong -d mroce0 -g $gid -n 100 -s 4096"
vm_pair2 installed-ibv_rc_pingpong 120 "$pp" "$pp $(vm_ip 0)"
if command -v tshark >/dev/null; then
	t_run "tshark loads the installed dissector" \
		sh -c "tshark -G protocols 2>/dev/null | grep -q '	mroce\$'"
fi
t_run "rdma link del mroce0" rdma link del mroce0
t_run "modprobe -r mroce" modprobe -r mroce

t_run "make uninstall" make -s -C "$top" uninstall
t_run "nothing left in /opt/mroce" sh -c '! [ -e /opt/mroce ]'
t_run "no ld.so.conf entry left" sh -c '! [ -e /etc/ld.so.conf.d/00-mroce.conf ]'
t_run "no module left" sh -c '! modinfo -n mroce'
if command -v tshark >/dev/null; then
	t_run "no dissector left" \
		sh -c "! tshark -G protocols 2>/dev/null | grep -q '	mroce\$'"
fi
t_run "programs back on the system's libibverbs" uses_libverbs /lib/x86_64-linux-gnu/libibverbs.so.1
t_run "the system's ibv_devices runs" "${clean[@]}" ibv_devices
vm_barrier "done"
t_done
