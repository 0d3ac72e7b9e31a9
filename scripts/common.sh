# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# Shared settings for mroce's scripts; source it, do not run it.
#
# MROCE_CACHE  where downloads and long-lived builds live, outside any clone
# KDIR         kernel build tree for the module (default: the headers of KVER)
# KVER         the kernel release the module is built for and the VMs boot
#              (default: the newest Debian 6.1 release, the first of
#              MROCE_KSERIES; MROCE_KVER is the same for scripts/vm)
# MROCE_KROOT  a root holding boot/ and lib/modules/ of a kernel that is not
#              installed on the host (the debug kernel, scripts/debug-kernel);
#              empty: the host's /boot and /lib/modules

MROCE_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MROCE_CACHE=${MROCE_CACHE:-${HOME:-/root}/.cache/mroce}
LINUX_SRC_VER=6.1
# The kernel series mroce supports, as Debian 12 ships them: 6.1
# (linux-image-amd64) and 6.12 (linux-image-6.12-amd64).  The first is the
# default; the others are built and tested with KVER set.
MROCE_KSERIES=(6.1 6.12)
MROCE_KROOT=${MROCE_KROOT:-}

die() {
	echo "error: $*" >&2
	exit 1
}

# mroce_kver_of SERIES: the newest release of SERIES (e.g. 6.1 ->
# 6.1.0-57-amd64) whose headers and image are installed.
mroce_kver_of() {
	local k
	k=$(find /usr/src -maxdepth 1 -name "linux-headers-$1.*-amd64" -printf '%f\n' |
		sed 's/^linux-headers-//' | sort -V | tail -n 1)
	[ -n "$k" ] || die "no linux-headers-$1.*-amd64 in /usr/src: run 'make deps'"
	[ -e "/boot/vmlinuz-$k" ] || die "/boot/vmlinuz-$k missing: run 'make deps'"
	echo "$k"
}

mroce_kver() {
	if [ -n "${KVER:-}" ]; then
		echo "$KVER"
	elif [ -n "${MROCE_KVER:-}" ]; then
		echo "$MROCE_KVER"
	elif [ -n "${KDIR:-}" ]; then
		make -s -C "$KDIR" kernelrelease
	else
		mroce_kver_of "${MROCE_KSERIES[0]}"
	fi
}

mroce_kdir() {
	if [ -n "${KDIR:-}" ]; then
		echo "$KDIR"
		return
	fi
	local d
	if [ -n "$MROCE_KROOT" ]; then
		d=$MROCE_KROOT/lib/modules/$(mroce_kver)/build
		[ -d "$d" ] || die "$d missing: run scripts/debug-kernel"
		echo "$d"
		return
	fi
	d=/usr/src/linux-headers-$(mroce_kver)
	[ -d "$d" ] || die "$d missing: install linux-headers-$(mroce_kver)"
	echo "$d"
}

# mroce_kbuild_dir KVER: where the module for KVER is built, a copy of the
# sources under build/kmod/KVER.  No kernel builds in the source tree, so
# builds for two kernels never mix objects, and the KUnit build (which
# links the driver's directory into a kernel tree) finds no stale object
# there.
mroce_kbuild_dir() {
	echo "$MROCE_TOP/build/kmod/$1"
}

# mroce_module KVER: the path of mroce.ko built for KVER.
mroce_module() {
	echo "$(mroce_kbuild_dir "$1")/drivers/infiniband/sw/mroce/mroce.ko"
}

# mroce_kbuild_sync DIR [FILE...]: refresh the copy of the module's sources
# (and of the top-level FILEs) in DIR.  Build products are neither copied
# nor deleted, so make rebuilds only what changed.
mroce_kbuild_sync() {
	local dir=$1 f
	shift
	mkdir -p "$dir"
	local extra=()
	for f in "$@"; do
		extra+=("$MROCE_TOP/$f")
	done
	rsync -a --delete --exclude='*.o' --exclude='*.ko' --exclude='.*.cmd' \
		--exclude='*.mod' --exclude='*.mod.c' --exclude=modules.order \
		--exclude=Module.symvers --exclude='*.a' "${extra[@]}" \
		"$MROCE_TOP/Kbuild" "$MROCE_TOP/drivers" "$MROCE_TOP/include" "$dir/"
}

# mroce_clean_source_tree: delete kbuild products from the source tree (an
# "M=$PWD" build by hand, or a clone older than build/kmod leaves them).
# The copies under build/kmod never take them; the KUnit tree links the
# driver's directory, and kbuild searches the source tree for targets it
# has not built, so a stale object there would be linked into UML.
mroce_clean_source_tree() {
	find "$MROCE_TOP/drivers" "$MROCE_TOP/include" \( -name '*.o' -o -name '*.ko' \
		-o -name '.*.cmd' -o -name '*.mod' -o -name '*.mod.c' -o -name '*.a' \
		-o -name modules.order -o -name Module.symvers \) -delete
	rm -f "$MROCE_TOP"/{modules.order,Module.symvers,.modules.order.cmd,.Module.symvers.cmd}
}

# Debian's linux-source tree, extracted once into the cache.  Holds
# checkpatch.pl and is the base tree that KUnit overlays the driver onto.
mroce_linux_src() {
	local dst="$MROCE_CACHE/linux-source-$LINUX_SRC_VER"
	local tarball="/usr/src/linux-source-$LINUX_SRC_VER.tar.xz"
	[ -f "$tarball" ] || die "$tarball missing: run 'make deps'"
	if [ ! -f "$dst/.mroce-extracted" ] || [ "$tarball" -nt "$dst/.mroce-extracted" ]; then
		echo "extracting $tarball into $MROCE_CACHE" >&2
		rm -rf "$dst"
		mkdir -p "$MROCE_CACHE"
		tar -C "$MROCE_CACHE" -xf "$tarball"
		touch "$dst/.mroce-extracted"
	fi
	echo "$dst"
}
