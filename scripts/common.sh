# SPDX-License-Identifier: GPL-2.0-only
# Shared settings for mroce's scripts; source it, do not run it.
#
# MROCE_CACHE  where downloads and long-lived builds live, outside any clone
# KDIR         kernel build tree for the module (default: newest Debian
#              linux-headers-*-amd64)
# KVER         the kernel release matching KDIR (the VM boots this kernel)

MROCE_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MROCE_CACHE=${MROCE_CACHE:-${HOME:-/root}/.cache/mroce}
LINUX_SRC_VER=6.1

die() {
	echo "error: $*" >&2
	exit 1
}

# Newest Debian amd64 headers tree, unless KDIR is set.
mroce_kdir() {
	if [ -n "${KDIR:-}" ]; then
		echo "$KDIR"
		return
	fi
	local d
	d=$(find /usr/src -maxdepth 1 -name 'linux-headers-*-amd64' | sort -V | tail -n 1)
	[ -n "$d" ] || die "no linux-headers-*-amd64 in /usr/src: run 'make deps'"
	echo "$d"
}

mroce_kver() {
	if [ -n "${KVER:-}" ]; then
		echo "$KVER"
		return
	fi
	local k
	k=$(mroce_kdir)
	k=${k##*/linux-headers-}
	echo "$k"
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
